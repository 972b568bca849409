import type { ManagerEdge } from '../domain/bulkChecks.js';
import { itemRulesBroken, managerCycle, type RulesBroken, type Upsert } from '../domain/bulkItems.js';
import {
  changedFragments,
  groupItems,
  groupSlot,
  managerCycleAfter,
  managerItems,
  managerSlot,
  namesOf,
  newManagerEdges,
  payloadOverlapOf,
  resolveItems,
  slotWrites,
  touchedMonths,
  type Resolved,
  type ResolvedGroup,
  type ResolvedManager,
  type SlotRow,
  type SlotWrites,
  type UserMonthFragment,
  type UserRef,
} from '../domain/bulkPlan.js';
import type { Period } from '../domain/periods.js';
import type { UserUpsert } from '../domain/userItems.js';
import type { BulkOutcome, WrittenItem } from './store.js';

type Awaitable<T> = T | Promise<T>;

/** A stored attribution's columns besides its period: user, dimension, group; or user, manager. */
export type Columns = readonly number[];

/**
 * The attribution steps both the bulk upsert and a load take, for one tenant inside one write
 * transaction. `K` is how the engine finds a stored attribution again (its key).
 */
export interface AttributionSteps<K> {
  /** The stored e-mail of each user. */
  emails(userPks: readonly number[]): Awaitable<ReadonlyMap<number, string>>;
  /** The key of each group (dimension, name), in order; created when not known yet. */
  groupPks(wanted: readonly (readonly [number, string])[]): Awaitable<readonly number[]>;
  /** The stored group attributions sharing a month with each (user, dimension, period), each once. */
  storedGroups(wanted: readonly { userPk: number; dimensionPk: number; period: Period }[]): Awaitable<readonly SlotRow<Columns, K>[]>;
  /** The stored manager attributions sharing a month with each (user, period), each once. */
  storedManagers(wanted: readonly { userPk: number; period: Period }[]): Awaitable<readonly SlotRow<Columns, K>[]>;
  /** Carries out the writes on the group attributions (payload: user, dimension, group). */
  writeGroups(writes: SlotWrites<Columns, K>): Awaitable<void>;
  /** Carries out the writes on the manager attributions (payload: user, manager). */
  writeManagers(writes: SlotWrites<Columns, K>): Awaitable<void>;
  /** The tenant's dimension keys, in the order of the record fields. */
  dimensionKeys(): Awaitable<readonly string[]>;
}

/**
 * What the bulk upsert asks of an engine, for one tenant inside one write transaction: each
 * step reads or writes what the whole request needs (an engine with round trips makes each
 * one statement; SQLite, in process, may run a statement per row).
 */
export interface BulkSteps<K> extends AttributionSteps<K> {
  /** The tenant's users named by `sent` (e-mails compared without regard to ASCII case), by the name as sent. */
  users(sent: readonly string[]): Awaitable<ReadonlyMap<string, UserRef>>;
  /** The tenant's dimensions, key to primary key. */
  dimensions(): Awaitable<ReadonlyMap<string, number>>;
  /**
   * The stored manager edges a cycle through one of `edges` could run along: from each new
   * edge's manager upwards, through edges sharing a month with the way walked so far.
   */
  reachableManagers(edges: readonly ManagerEdge[]): Awaitable<readonly ManagerEdge[]>;
  /** The stored dimension fields of each user in the months of its period. */
  fragments(months: ReadonlyMap<number, Period>): Awaitable<readonly UserMonthFragment[]>;
  /** Writes changed dimension fields, stamped with a new change of the tenant. */
  updateFragments(changed: readonly UserMonthFragment[]): Awaitable<void>;
  /** The tenant's data changed: a new data version (what a paged read's ETag is made of). */
  dataChanged(): Awaitable<void>;
}

/**
 * `PUT /v1/users/groups/bulk` on any engine, inside the engine's write transaction. In
 * order: users, managers and dimensions exist; no two items of one slot share a month; no
 * cycle of managers; then each item overrides the stored attributions of its slot, and the
 * dimension fields of the touched users and months are re-rendered. Every decision is
 * pure code (domain/bulkPlan.ts). A broken rule is found before the first write, so the
 * engine rolls back or commits nothing; a thrown error must roll the transaction back.
 */
export async function bulkUpsertWith<K>(steps: BulkSteps<K>, items: readonly Upsert[]): Promise<BulkOutcome> {
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

async function managerCycleOf<K>(steps: BulkSteps<K>, items: readonly ResolvedManager[]): Promise<RulesBroken | undefined> {
  if (items.length === 0) return undefined;
  const cycle = managerCycleAfter(items, await steps.reachableManagers(newManagerEdges(items)));
  if (!cycle) return undefined;
  const emails = await steps.emails(cycle.users);
  return managerCycle(cycle.users.map((pk) => emails.get(pk)!), cycle.month, cycle.closingIndex);
}

async function writeGroups<K>(steps: BulkSteps<K>, items: readonly ResolvedGroup[]): Promise<void> {
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

async function writeManagers<K>(steps: BulkSteps<K>, items: readonly ResolvedManager[]): Promise<void> {
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
async function refreshFragments<K>(steps: BulkSteps<K>, items: readonly ResolvedGroup[]): Promise<void> {
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
