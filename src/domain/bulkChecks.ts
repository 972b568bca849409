import { FIRST_MONTH, LAST_MONTH, type MonthIndex } from './months.js';
import { endBound, holdsWireMonth, startBound, type Period } from './periods.js';

/**
 * Checks of `PUT /v1/users/groups/bulk` that look at a whole request
 * (docs/rules.md#bulk-attributions): two items of one slot with overlapping periods, and
 * manager chains that come back to where they started. Pure functions over plain values; the
 * handler answers `422` when either finds something.
 */

/**
 * One request item as the overlap check sees it. `slot` is opaque and decided by the caller:
 * two items compete for the same months exactly when their slots are equal. The caller folds
 * case and keeps group and manager items apart, e.g. `g:<userId>:<dimensionId>` and
 * `m:<userId>` with resolved user ids (or a lower-cased e-mail).
 */
export interface SlotPeriod extends Period {
  readonly slot: string;
}

/** Two items of one request that hold the same slot in a shared month. */
export interface PayloadOverlap {
  /** The later item: the one the `422` points at (`/data/<index>`). */
  readonly index: number;
  /** The earlier item it collides with, for the detail. */
  readonly otherIndex: number;
}

/**
 * The first item (smallest index) that shares a month with an earlier item of its slot, and
 * that earlier item (the one that starts first, when several collide), or `undefined`.
 * Indices are positions in `items`, so pass one entry per request item.
 *
 * Scans in request order. Until the first collision, the earlier items of each slot are
 * pairwise disjoint, so kept sorted by start they are sorted by end too, and one binary
 * search finds the only candidate to test: O(n log n) comparisons.
 */
export function firstPayloadOverlap(items: readonly SlotPeriod[]): PayloadOverlap | undefined {
  const earlierBySlot = new Map<string, number[]>();
  for (const [index, item] of items.entries()) {
    const earlier = earlierBySlot.get(item.slot) ?? [];
    earlierBySlot.set(item.slot, earlier);
    // The first earlier item that does not end before `item` starts.
    const position = lowestPosition(earlier, (i) => endBound(items[i]!) >= startBound(item));
    const candidate = earlier[position];
    if (candidate !== undefined && startBound(items[candidate]!) <= endBound(item)) {
      return { index, otherIndex: candidate };
    }
    earlier.splice(position, 0, index);
  }
  return undefined;
}

/** The first position in `sorted` where `reached` holds (`reached` is monotone), or its length. */
function lowestPosition(sorted: readonly number[], reached: (value: number) => boolean): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (reached(sorted[middle]!)) high = middle;
    else low = middle + 1;
  }
  return low;
}

/**
 * A manager attribution as the cycle check sees it: during the period, `manager` manages
 * `user`. Users are opaque ids (e.g. user primary keys).
 */
export interface ManagerEdge extends Period {
  readonly user: number;
  readonly manager: number;
}

/** A chain of managers that comes back to its start, and when. */
export interface ManagerCycle {
  /** `users[i]` is managed by `users[i + 1]`, the last by the first; one user manages themself. */
  readonly users: number[];
  /**
   * The months in which this cycle holds, the earliest run with a cycle: the manager graph
   * does not change inside it. Its ends are open (`null`) when it reaches `0000-01` or
   * `9999-12`: those hold the same months the wire form can write.
   */
  readonly during: Period;
  /**
   * One month of `during` for the message: its start, else its end; `null` when every month.
   * Always a month the wire form can write.
   */
  readonly month: MonthIndex | null;
}

/**
 * The earliest cycle among `edges` (the manager attributions that a request would leave, see
 * `applyUpserts`), or `undefined`. Edges with an empty period hold no month and are skipped,
 * as are edges holding no month the wire form can write.
 * A user may have several managers in one month (rows written outside the API can overlap):
 * the graph is then a general directed graph, and a cycle is still found; nothing throws.
 *
 * The graph changes only where a period starts or ends, so it sweeps those boundaries in
 * order, keeping each user's current managers. Dropping edges cannot make a cycle, and the
 * graph before a boundary had none, so a new cycle runs through an edge that starts there:
 * only paths from those edges' managers back to their users are searched.
 */
export function firstManagerCycle(edges: readonly ManagerEdge[]): ManagerCycle | undefined {
  const live = edges.filter(holdsWireMonth).map(openAtWireEdges);
  const boundaries = [...new Set(live.flatMap(boundariesOf))].sort((a, b) => a - b);
  const segmentStarts = [null, ...boundaries];
  const startingAt = groupBy(live, (edge) => edge.start);
  const endingBefore = groupBy(live.filter((edge) => edge.end !== null), (edge) => edge.end! + 1);
  const managersOf = new Map<number, Set<ManagerEdge>>();

  for (const [i, segmentStart] of segmentStarts.entries()) {
    const ended = segmentStart === null ? [] : (endingBefore.get(segmentStart) ?? []);
    for (const edge of ended) managersOf.get(edge.user)?.delete(edge);
    const added = startingAt.get(segmentStart) ?? [];
    for (const edge of added) {
      const current = managersOf.get(edge.user);
      if (current) current.add(edge);
      else managersOf.set(edge.user, new Set([edge]));
    }
    for (const edge of added) {
      const path = managerPath(edge.manager, edge.user, managersOf);
      if (path === undefined) continue;
      const next = boundaries[i]; // the start of the following segment
      const during: Period = { start: segmentStart, end: next === undefined ? null : next - 1 };
      return { users: [edge.user, ...path.slice(0, -1)], during, month: during.start ?? during.end };
    }
  }
  return undefined;
}

/**
 * `edge` with a start at `0000-01` read as "since always" and an end at `9999-12` as "no end":
 * the same months on the wire. Else an edge starting at `0000-01` would be a boundary, and a
 * cycle of since-always edges would be found in the run "since always .. `0000-00`", which
 * holds no month a message can name. Every boundary then falls in `0000-02`..`9999-12`, so
 * every run of the sweep holds a month the wire form can write.
 */
function openAtWireEdges(edge: ManagerEdge): ManagerEdge {
  const start = edge.start !== null && edge.start <= FIRST_MONTH ? null : edge.start;
  const end = edge.end !== null && edge.end >= LAST_MONTH ? null : edge.end;
  return start === edge.start && end === edge.end ? edge : { ...edge, start, end };
}

/** The months where `edge` changes the graph: its start, and the month after its end. */
function boundariesOf(edge: ManagerEdge): MonthIndex[] {
  const changes: MonthIndex[] = [];
  if (edge.start !== null) changes.push(edge.start);
  if (edge.end !== null) changes.push(edge.end + 1);
  return changes;
}

/**
 * A chain of managers from `from` up to `to` (both included: `[from, ..., to]`), or `undefined`
 * when none leads there. Depth first; with one manager per user it is the plain chain.
 */
function managerPath(
  from: number,
  to: number,
  managersOf: ReadonlyMap<number, ReadonlySet<ManagerEdge>>,
): number[] | undefined {
  const parentOf = new Map<number, number | null>([[from, null]]);
  const pending = [from];
  while (pending.length > 0) {
    const user = pending.pop()!;
    if (user === to) return pathTo(user, parentOf);
    for (const { manager } of managersOf.get(user) ?? []) {
      if (parentOf.has(manager)) continue;
      parentOf.set(manager, user);
      pending.push(manager);
    }
  }
  return undefined;
}

function pathTo(user: number, parentOf: ReadonlyMap<number, number | null>): number[] {
  const path: number[] = [];
  for (let current: number | null = user; current !== null; current = parentOf.get(current) ?? null) path.push(current);
  return path.reverse();
}

function groupBy<T, K>(items: readonly T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
