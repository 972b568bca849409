import { firstManagerCycle, firstPayloadOverlap, type ManagerEdge } from '../../domain/bulkChecks.js';
import {
  itemRulesBroken,
  managerCycle,
  ownManager,
  payloadOverlap,
  unknownDimension,
  unknownUser,
  type GroupUpsert,
  type ManagerUpsert,
  type RuleViolation,
  type RulesBroken,
  type Upsert,
} from '../../domain/bulkItems.js';
import { applyOverride, applyUpserts, overrideWrites, periodIntersection, periodsOverlap, type Period } from '../../domain/periods.js';
import { attributionStatements, type AttributionStatements, type UserRow } from './attributions.js';
import type { BulkOutcome, WrittenItem } from '../store.js';
import { dataVersionBumper } from './dataVersion.js';
import type { Db } from './db.js';
import { userMonthsRefresher } from './dimensionValues.js';

type ResolvedGroup = GroupUpsert & { readonly index: number; readonly userRow: UserRow; readonly dimensionPk: number };
type ResolvedManager = ManagerUpsert & { readonly index: number; readonly userRow: UserRow; readonly managerRow: UserRow };
type Resolved = ResolvedGroup | ResolvedManager;

/**
 * `PUT /v1/users/groups/bulk` in the store (D4): one IMMEDIATE transaction, so concurrent
 * requests (of this or any other process) are serialised, and every check reads the data it
 * is about to change. In order: users, managers and dimensions exist; no two items of one slot
 * share a month; no cycle of managers; then each item overrides the stored attributions of its
 * slot, and the dimension fields of the touched users and months are re-rendered (D3).
 * A broken rule is found before the first write, so returning it leaves nothing written; any
 * unexpected error throws, which rolls the transaction back. `beforeCommit` runs after the
 * writes, inside the transaction (a test's way to kill a writer there).
 */
export function bulkUpserter(db: Db, beforeCommit?: () => void): (tenantId: number, items: readonly Upsert[]) => BulkOutcome {
  const statements = attributionStatements(db);
  const refreshMonths = userMonthsRefresher(db);
  const bumpDataVersion = dataVersionBumper(db);
  const transaction = db.transaction((tenantId: number, items: readonly Upsert[]): BulkOutcome => {
    const resolved = resolveItems(statements, tenantId, items);
    if (!Array.isArray(resolved)) return { broken: resolved };
    const broken = payloadOverlapOf(resolved) ?? managerCycleOf(statements, resolved);
    if (broken) return { broken };
    refreshMonths(tenantId, writeItems(statements, resolved));
    bumpDataVersion(tenantId);
    beforeCommit?.();
    return { written: resolved.map(writtenItem) };
  });
  return (tenantId, items) => transaction.immediate(tenantId, items);
}

/** Finds the stored user of each e-mail and the dimension of each key; every unknown one is a violation. */
function resolveItems(statements: AttributionStatements, tenantId: number, items: readonly Upsert[]): Resolved[] | RulesBroken {
  const users = cached((email: string) => statements.userByEmail(tenantId, email));
  const dimensions = cached((key: string) => statements.dimensionByKey(tenantId, key));
  const violations: RuleViolation[] = [];
  const resolved: Resolved[] = [];
  for (const [index, item] of items.entries()) {
    const userRow = users(item.user);
    if (!userRow) violations.push(unknownUser(index, 'user', item.user));
    if (item.kind === 'group') {
      const dimensionPk = dimensions(item.dimension);
      if (dimensionPk === undefined) violations.push(unknownDimension(index, item.dimension));
      if (userRow && dimensionPk !== undefined) resolved.push({ ...item, index, userRow, dimensionPk });
      continue;
    }
    const managerRow = users(item.manager);
    if (!managerRow) violations.push(unknownUser(index, 'manager', item.manager));
    else if (userRow?.pk === managerRow.pk) violations.push(ownManager(index));
    else if (userRow) resolved.push({ ...item, index, userRow, managerRow });
  }
  return violations.length > 0 ? itemRulesBroken(violations) : resolved;
}

function payloadOverlapOf(items: readonly Resolved[]): RulesBroken | undefined {
  const slotted = items.map((item) => ({
    start: item.start,
    end: item.end,
    slot: item.kind === 'group' ? `g${item.userRow.pk}:${item.dimensionPk}` : `m${item.userRow.pk}`,
  }));
  const overlap = firstPayloadOverlap(slotted);
  return overlap && payloadOverlap(items, overlap.index, overlap.otherIndex);
}

/**
 * A cycle of managers that the request would leave. A new cycle holds in some month and runs
 * through a new edge, whose period holds that month: so only the stored edges reachable upwards
 * from the new edges' managers through edges that share a month with the way walked so far can
 * be on it. Those are read, overridden by the new edges, and swept month by month.
 */
function managerCycleOf(statements: AttributionStatements, items: readonly Resolved[]): RulesBroken | undefined {
  const managerItems = items.filter((item): item is ResolvedManager => item.kind === 'manager');
  if (managerItems.length === 0) return undefined;
  const newEdges: ManagerEdge[] = managerItems.map((item) => ({
    user: item.userRow.pk,
    manager: item.managerRow.pk,
    start: item.start,
    end: item.end,
  }));
  const stored = edgesOnPossibleCycles(statements, newEdges);
  const cycle = firstManagerCycle(applyUpserts(stored, newEdges, (edge) => String(edge.user)));
  if (!cycle) return undefined;
  // The cycle's first edge is the one that closed it; any later edge of the request will do else.
  const itemOf = (user: number, i: number) => {
    const manager = cycle.users[(i + 1) % cycle.users.length];
    return managerItems.find((item) => item.userRow.pk === user && item.managerRow.pk === manager && periodsOverlap(item, cycle.during));
  };
  const closing = cycle.users.map(itemOf).find((item) => item !== undefined);
  return managerCycle(cycle.users.map(statements.emailOfUser), cycle.month, closing?.index);
}

function edgesOnPossibleCycles(statements: AttributionStatements, newEdges: readonly ManagerEdge[]): ManagerEdge[] {
  const found = new Map<number, ManagerEdge>();
  const visited = new Set<string>();
  const pending: [number, Period][] = newEdges.map((edge) => [edge.manager, edge]);
  while (pending.length > 0) {
    const [user, months] = pending.pop()!;
    const visit = `${user}:${months.start}:${months.end}`;
    if (visited.has(visit)) continue;
    visited.add(visit);
    for (const edge of statements.managersOverlapping(user, months)) {
      found.set(edge.pk, edge);
      pending.push([edge.manager, periodIntersection(months, edge)!]);
    }
  }
  return [...found.values()];
}

/** Writes every item over its slot; returns the months touched per user with group items. */
function writeItems(statements: AttributionStatements, items: readonly Resolved[]): Map<number, Period> {
  const touchedMonths = new Map<number, Period>();
  for (const item of items) {
    const userPk = item.userRow.pk;
    if (item.kind === 'group') {
      const stored = statements.groupsOverlapping(userPk, item.dimensionPk, item);
      statements.writeGroupPeriods(overrideWrites(applyOverride(stored, item).changed));
      const groupPk = statements.groupPk(item.dimensionPk, item.group);
      statements.insertGroupAttribution(userPk, item.dimensionPk, groupPk, item);
      touchedMonths.set(userPk, hull(touchedMonths.get(userPk), item));
    } else {
      const stored = statements.managersOverlapping(userPk, item);
      statements.writeManagerPeriods(overrideWrites(applyOverride(stored, item).changed));
      statements.insertManagerAttribution(userPk, item.managerRow.pk, item);
    }
  }
  return touchedMonths;
}

function writtenItem(item: Resolved): WrittenItem {
  return item.kind === 'group' ? { user: item.userRow.email } : { user: item.userRow.email, manager: item.managerRow.email };
}

/** The smallest period holding both (`a` absent: `b`). */
function hull(a: Period | undefined, b: Period): Period {
  if (!a) return { start: b.start, end: b.end };
  const start = a.start === null || b.start === null ? null : Math.min(a.start, b.start);
  const end = a.end === null || b.end === null ? null : Math.max(a.end, b.end);
  return { start, end };
}

/** `lookup` remembered per argument, for one request. */
function cached<K, V>(lookup: (key: K) => V): (key: K) => V {
  const seen = new Map<K, V>();
  return (key) => {
    if (!seen.has(key)) seen.set(key, lookup(key));
    return seen.get(key) as V;
  };
}
