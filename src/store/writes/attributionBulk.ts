import type { BulkSteps } from '../engine/apiWriteSteps.js';
import { itemRulesBroken, managerCycle, type RulesBroken, type Upsert } from '../../domain/bulkItems.js';
import { changedFragments, groupItems, groupSlot, managerCycleAfter, managerItems, managerSlot, namesOf, newManagerEdges, payloadOverlapOf, resolveItems, slotWrites, touchedMonths, type Resolved, type ResolvedGroup, type ResolvedManager } from '../../domain/bulkPlan.js';
import type { UserUpsert } from '../../domain/userItems.js';
import type { BulkOutcome, WrittenItem } from '../vocabulary/writeShapes.js';

/**
 * `PUT /v1/users/groups/bulk` on any engine, inside the engine's write transaction. In
 * order: users, managers and dimensions exist; no two items of one slot share a month; no
 * cycle of managers; then each item overrides the stored attributions of its slot, and the
 * dimension fields of the touched users and months are re-rendered. Every decision is
 * pure code (domain/bulkPlan.ts). A broken rule is found before the first write, so the
 * engine rolls back or commits nothing; a thrown error must roll the transaction back.
 */
export async function bulkUpsertWith<G, M>(steps: BulkSteps<G, M>, items: readonly Upsert[]): Promise<BulkOutcome> {
  const { emails, dimensionKeys } = namesOf(items);
  const dimensions = dimensionKeys.length > 0 ? await steps.dimensions() : new Map<string, number>();
  const resolved = resolveItems(items, await steps.users(emails), dimensions);
  if (!Array.isArray(resolved)) return { broken: resolved };
  const groups = groupItems(resolved);
  const managers = managerItems(resolved);
  const broken = payloadOverlapOf(resolved) ?? (await managerCycleOf(steps, managers));
  if (broken) return { broken };
  if (groups.length > 0) await writeGroups(steps, groups);
  if (managers.length > 0) await writeManagers(steps, managers);
  await refreshFragments(steps, groups);
  await steps.dataChanged();
  return { written: resolved.map(writtenItem) };
}

async function managerCycleOf<G, M>(steps: BulkSteps<G, M>, items: readonly ResolvedManager[]): Promise<RulesBroken | undefined> {
  if (items.length === 0) return undefined;
  const cycle = managerCycleAfter(items, await steps.reachableManagers(newManagerEdges(items)));
  if (!cycle) return undefined;
  const emails = await steps.emails(cycle.users);
  return managerCycle(cycle.users.map((pk) => emails.get(pk)!), cycle.month, cycle.closingIndex);
}

async function writeGroups<G, M>(steps: BulkSteps<G, M>, items: readonly ResolvedGroup[]): Promise<void> {
  const groupPks = await steps.groupPks(items.map((item) => [item.dimensionPk, item.group] as const));
  const stored = await steps.storedGroups(items.map((item) => ({ userPk: item.userRow.pk, dimensionPk: item.dimensionPk, period: item })));
  const incoming = items.map((item, i) => ({
    slot: groupSlot(item.userRow.pk, item.dimensionPk),
    payload: [item.userRow.pk, item.dimensionPk, groupPks[i]!],
    start: item.start,
    end: item.end,
  }));
  await steps.writeGroups(slotWrites(stored, incoming));
}

async function writeManagers<G, M>(steps: BulkSteps<G, M>, items: readonly ResolvedManager[]): Promise<void> {
  const stored = await steps.storedManagers(items.map((item) => ({ userPk: item.userRow.pk, period: item })));
  const incoming = items.map((item) => ({
    slot: managerSlot(item.userRow.pk),
    payload: [item.userRow.pk, item.managerRow.pk],
    start: item.start,
    end: item.end,
  }));
  await steps.writeManagers(slotWrites(stored, incoming));
}

/** Re-renders the dimension fields of the users and months the group items touched (docs/rules.md#metrics-and-dimensions). */
async function refreshFragments<G, M>(steps: BulkSteps<G, M>, items: readonly ResolvedGroup[]): Promise<void> {
  const months = touchedMonths(items);
  if (months.size === 0) return;
  const stored = await steps.fragments(months);
  if (stored.length === 0) return;
  const changed = changedFragments(await steps.dimensionKeys(), stored, items);
  if (changed.length > 0) await steps.updateFragments(changed);
}

function writtenItem(item: Resolved): WrittenItem {
  return item.kind === 'group' ? { user: item.userRow.email } : { user: item.userRow.email, manager: item.managerRow.email };
}

/**
 * Group names an engine whose text cannot hold U+0000 could not store (PostgreSQL): refused as
 * a broken rule before anything is read, as any other name the tenant cannot have.
 */
export function unstorableGroups(items: readonly Upsert[]): RulesBroken | undefined {
  return unstorableText(items.map((item) => (item.kind === 'group' ? item.group : '')), 'group');
}

/** User ids such an engine could not store (the other fields are stored as JSON, where U+0000 is escaped). */
export function unstorableUserIds(items: readonly UserUpsert[]): RulesBroken | undefined {
  return unstorableText(items.map((item) => item.fields.id ?? ''), 'id');
}

function unstorableText(texts: readonly string[], field: string): RulesBroken | undefined {
  const violations = texts.flatMap((text, index) =>
    text.includes('\u0000') ? [{ index, field, message: `${field} must not contain the character U+0000 on this server` }] : [],
  );
  return violations.length > 0 ? itemRulesBroken(violations) : undefined;
}
