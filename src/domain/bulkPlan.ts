import type { UserRef } from './userRef.js';
import { archivedUser, pastArchive } from './archiveItems.js';
import { firstManagerCycle, firstPayloadOverlap, type ManagerCycle, type ManagerEdge } from './bulkChecks.js';
import { itemRulesBroken, ownManager, payloadOverlap, unknownDimension, unknownUser, type GroupUpsert, type ManagerUpsert, type RuleViolation, type RulesBroken, type Upsert } from './bulkItems.js';
import { applyUpserts, periodContains, periodsOverlap, subtractPeriod, type Period } from './periods.js';
import { replaceDimensionGroups } from './reportingJson.js';

export type ResolvedGroup = GroupUpsert & { readonly index: number; readonly userRow: UserRef; readonly dimensionPk: number };
export type ResolvedManager = ManagerUpsert & { readonly index: number; readonly userRow: UserRef; readonly managerRow: UserRef };
export type Resolved = ResolvedGroup | ResolvedManager;

/** The distinct e-mail addresses and dimension keys of a request, as sent: what a store looks up. */
export function namesOf(items: readonly Upsert[]): { emails: string[]; dimensionKeys: string[] } {
  const emails = new Set<string>();
  const dimensionKeys = new Set<string>();
  for (const item of items) {
    emails.add(item.user);
    if (item.kind === 'group') dimensionKeys.add(item.dimension);
    else emails.add(item.manager);
  }
  return { emails: [...emails], dimensionKeys: [...dimensionKeys] };
}

/**
 * Each item with its stored user, manager and dimension (`users` and `dimensions` map the
 * names as sent to what the store found); every unknown one, and every user named as their
 * own manager, is a violation.
 */
export function resolveItems(
  items: readonly Upsert[],
  users: ReadonlyMap<string, UserRef>,
  dimensions: ReadonlyMap<string, number>,
): Resolved[] | RulesBroken {
  const violations: RuleViolation[] = [];
  const resolved: Resolved[] = [];
  for (const [index, item] of items.entries()) {
    const userRow = users.get(item.user);
    if (!userRow) violations.push(unknownUser(index, 'user', item.user));
    else if (pastArchive(userRow, item)) violations.push(archivedUser(index, 'user', userRow));
    if (item.kind === 'group') {
      const dimensionPk = dimensions.get(item.dimension);
      if (dimensionPk === undefined) violations.push(unknownDimension(index, item.dimension));
      if (userRow && dimensionPk !== undefined) resolved.push({ ...item, index, userRow, dimensionPk });
      continue;
    }
    const managerRow = users.get(item.manager);
    if (!managerRow) violations.push(unknownUser(index, 'manager', item.manager));
    else if (userRow?.pk === managerRow.pk) violations.push(ownManager(index));
    else if (pastArchive(managerRow, item)) violations.push(archivedUser(index, 'manager', managerRow));
    else if (userRow) resolved.push({ ...item, index, userRow, managerRow });
  }
  return violations.length > 0 ? itemRulesBroken(violations) : resolved;
}

/** Two items of one slot sharing a month, the first such pair in request order. */
export function payloadOverlapOf(items: readonly Resolved[]): RulesBroken | undefined {
  const overlap = firstPayloadOverlap(items.map((item) => ({ start: item.start, end: item.end, slot: slotOf(item) })));
  return overlap && payloadOverlap(items, overlap.index, overlap.otherIndex);
}

/** The slot of a group attribution: its user and dimension. */
export const groupSlot = (userPk: number, dimensionPk: number): string => `g${userPk}:${dimensionPk}`;
/** The slot of a manager attribution: its user. */
export const managerSlot = (userPk: number): string => `m${userPk}`;

/** The slot an item writes. */
function slotOf(item: Resolved): string {
  return item.kind === 'group' ? groupSlot(item.userRow.pk, item.dimensionPk) : managerSlot(item.userRow.pk);
}

export const groupItems = (items: readonly Resolved[]) => items.filter((item): item is ResolvedGroup => item.kind === 'group');
export const managerItems = (items: readonly Resolved[]) => items.filter((item): item is ResolvedManager => item.kind === 'manager');

/** The new manager edges of a request: where a store starts its walk up the stored edges. */
export function newManagerEdges(items: readonly ResolvedManager[]): ManagerEdge[] {
  return items.map((item) => ({ user: item.userRow.pk, manager: item.managerRow.pk, start: item.start, end: item.end }));
}

/** A cycle of managers the request would leave, and the item that closes it (when one does). */
export interface CycleFound extends ManagerCycle {
  readonly closingIndex: number | undefined;
}

/**
 * The first cycle of managers once the request's manager items override `reachable`: every
 * stored edge on a possible cycle (a store finds them by walking up from the new edges'
 * managers through edges that share a month with the way walked so far).
 */
export function managerCycleAfter(items: readonly ResolvedManager[], reachable: readonly ManagerEdge[]): CycleFound | undefined {
  if (items.length === 0) return undefined;
  const cycle = firstManagerCycle(applyUpserts(reachable, newManagerEdges(items), (edge) => String(edge.user)));
  if (!cycle) return undefined;
  // The cycle's first edge is the one that closed it; any later edge of the request will do else.
  const itemOf = (user: number, i: number) => {
    const manager = cycle.users[(i + 1) % cycle.users.length];
    return items.find((item) => item.userRow.pk === user && item.managerRow.pk === manager && periodsOverlap(item, cycle.during));
  };
  return { ...cycle, closingIndex: cycle.users.map(itemOf).find((item) => item !== undefined)?.index };
}

/** A stored attribution: its key in the store, its slot, its period and what it attributes. */
export interface SlotRow<P, K> extends Period {
  readonly key: K;
  readonly slot: string;
  readonly payload: P;
}

/** A new attribution: of `slot`, over the period, attributing `payload`. */
export interface NewRow<P> extends Period {
  readonly slot: string;
  readonly payload: P;
}

/** The writes that carry out a request on one attribution table. */
export interface SlotWrites<P, K> {
  readonly deletes: K[];
  readonly updates: { readonly key: K; readonly period: Period }[];
  /** The pieces of split rows (with their row's payload), then the items themselves. */
  readonly inserts: NewRow<P>[];
}

/**
 * `writes` with each insert made at the key of a row it deletes (an item that starts where a
 * stored period of its slot started) taken out of both, as a rewrite of that row in place: one
 * write instead of a delete and an insert. No other write takes such a key: inserts share no
 * slot and start, and an update's new start is a month outside every item. `keyOfDelete` and
 * `keyOfInsert` name a key alike (`undefined`: an insert with no start, which no delete matches).
 */
export function rewritesInPlace<P, K>(
  writes: SlotWrites<P, K>,
  keyOfDelete: (key: K) => string,
  keyOfInsert: (row: NewRow<P>) => string | undefined,
): { writes: SlotWrites<P, K>; rewrites: NewRow<P>[] } {
  const deleted = new Map(writes.deletes.map((key) => [keyOfDelete(key), key]));
  const inserts: NewRow<P>[] = [];
  const rewrites: NewRow<P>[] = [];
  for (const row of writes.inserts) {
    const key = keyOfInsert(row);
    if (key !== undefined && deleted.delete(key)) rewrites.push(row);
    else inserts.push(row);
  }
  return { writes: { deletes: [...deleted.values()], updates: writes.updates, inserts }, rewrites };
}

/**
 * The override rule for a whole request on one table: `stored` are the stored rows that
 * share a month with an item of their slot (each once), `incoming` the
 * items, pairwise without a shared month within a slot. Each stored row keeps its months
 * outside every item of its slot: none (delete), one run (update), or several (update the
 * first, insert the others with the row's payload). Then every item is inserted.
 */
export function slotWrites<P, K>(stored: readonly SlotRow<P, K>[], incoming: readonly NewRow<P>[]): SlotWrites<P, K> {
  const cutsBySlot = new Map<string, Period[]>();
  for (const row of incoming) {
    const cuts = cutsBySlot.get(row.slot);
    if (cuts) cuts.push(row);
    else cutsBySlot.set(row.slot, [row]);
  }
  const writes: SlotWrites<P, K> = { deletes: [], updates: [], inserts: [] };
  for (const row of stored) {
    let pieces: Period[] = [row];
    for (const cut of cutsBySlot.get(row.slot) ?? []) pieces = pieces.flatMap((piece) => subtractPeriod(piece, cut));
    const [first, ...rest] = pieces;
    if (first === undefined) writes.deletes.push(row.key);
    else if (first.start !== row.start || first.end !== row.end) writes.updates.push({ key: row.key, period: first });
    for (const piece of rest) writes.inserts.push({ slot: row.slot, payload: row.payload, start: piece.start, end: piece.end });
  }
  // One at a time: spread arguments live on the stack, and a load passes hundreds of thousands.
  for (const row of incoming) writes.inserts.push(row);
  return writes;
}

/** The months a request's group items touch, per user: the hull of that user's items. */
export function touchedMonths(items: readonly ResolvedGroup[]): Map<number, Period> {
  const touched = new Map<number, Period>();
  for (const item of items) touched.set(item.userRow.pk, hull(touched.get(item.userRow.pk), item));
  return touched;
}

/** The smallest period holding both (`a` absent: `b`). */
function hull(a: Period | undefined, b: Period): Period {
  if (!a) return { start: b.start, end: b.end };
  const start = a.start === null || b.start === null ? null : Math.min(a.start, b.start);
  const end = a.end === null || b.end === null ? null : Math.max(a.end, b.end);
  return { start, end };
}

/** The dimension fields of one user and month, as stored. */
export interface UserMonthFragment {
  readonly userPk: number;
  readonly month: number;
  readonly fragment: string;
}

/**
 * The dimension fields that change once a request's group items are written
 * (docs/rules.md#metrics-and-dimensions): `stored` are the fields of the touched users and
 * months. An item holds its slot alone over its months, so in a month an item of the user
 * covers, that dimension shows the item's group and nothing else; the other dimensions stay as
 * stored. Only the fields whose text differs are returned, with their new text.
 */
export function changedFragments(
  dimensionKeys: readonly string[],
  stored: readonly UserMonthFragment[],
  items: readonly ResolvedGroup[],
): UserMonthFragment[] {
  const itemsOf = new Map<number, ResolvedGroup[]>();
  for (const item of items) {
    const list = itemsOf.get(item.userRow.pk);
    if (list) list.push(item);
    else itemsOf.set(item.userRow.pk, [item]);
  }
  // A user's months mostly hold the same text under the same items: such a run is rendered once.
  let last: { covering: readonly ResolvedGroup[]; fragment: string; rendered: string } | undefined;
  const changed: UserMonthFragment[] = [];
  for (const { userPk, month, fragment } of stored) {
    const covering = (itemsOf.get(userPk) ?? []).filter((item) => periodContains(item, month));
    if (covering.length === 0) continue;
    const rendered =
      last && last.fragment === fragment && sameItems(last.covering, covering)
        ? last.rendered
        : replaceDimensionGroups(dimensionKeys, fragment, new Map(covering.map((item) => [item.dimension, item.group])));
    last = { covering, fragment, rendered };
    if (rendered !== fragment) changed.push({ userPk, month, fragment: rendered });
  }
  return changed;
}

const sameItems = (a: readonly ResolvedGroup[], b: readonly ResolvedGroup[]) => a.length === b.length && a.every((item, i) => item === b[i]);
