import { FIRST_MONTH, LAST_MONTH, type MonthIndex } from './months.js';

/**
 * Periods of months and the override rule of `PUT /v1/users/groups/bulk`
 * (docs/rules.md#bulk-attributions). Pure functions: the store reads the attributions of one
 * slot, asks here what to change, and turns the answer into DELETE / UPDATE / INSERT
 * statements.
 */

/**
 * A run of months, inclusive of both ends. `start: null`: since always (manager attributions
 * only); `end: null`: no end. A period whose `start` is after its `end` holds no month: callers
 * reject it first with {@link periodProblem}.
 */
export interface Period {
  readonly start: MonthIndex | null;
  readonly end: MonthIndex | null;
}

/**
 * Every month the wire form can write, `0000-01` through `9999-12`. `start: null` ("since
 * always") holds every month up to the period's end, so its first month the wire can write
 * is `0000-01`; `end: null` ("no end") likewise runs through `9999-12` and no further month
 * exists on the wire.
 */
const WIRE_MONTHS: Period = { start: FIRST_MONTH, end: LAST_MONTH };

/**
 * Whether `p` holds a month the wire form can write. One that holds none is empty for every
 * purpose of the API: it could only read back with a month outside the contract, such as
 * "since always .. `0000-00`" or "`10000-01` .. no end".
 */
export function holdsWireMonth(p: Period): boolean {
  return periodProblem(p) === undefined && periodsOverlap(p, WIRE_MONTHS);
}

/** The first month of `p` as a number: `-Infinity` when it runs since always. */
export function startBound(p: Period): number {
  return p.start ?? -Infinity;
}

/** The last month of `p` as a number: `+Infinity` when it has no end. */
export function endBound(p: Period): number {
  return p.end ?? Infinity;
}

/**
 * Why `p` cannot be stored, or `undefined` when it can: a start after the end is a `400`.
 * The message names the wire fields so the HTTP layer can use it as it is.
 */
export function periodProblem(p: Period): string | undefined {
  if (p.start !== null && p.end !== null && p.start > p.end) return 'start_date is after end_date';
  return undefined;
}

/** Whether `month` is one of the months of `p`. */
export function periodContains(p: Period, month: MonthIndex): boolean {
  return startBound(p) <= month && month <= endBound(p);
}

/** Whether `a` and `b` share at least one month. Adjacent periods (`..03`, `04..`) do not. */
export function periodsOverlap(a: Period, b: Period): boolean {
  return startBound(a) <= endBound(b) && startBound(b) <= endBound(a);
}

/** The months `a` and `b` share, or `undefined` when they share none. */
export function periodIntersection(a: Period, b: Period): Period | undefined {
  if (!periodsOverlap(a, b)) return undefined;
  const start = a.start === null ? b.start : b.start === null ? a.start : Math.max(a.start, b.start);
  const end = a.end === null ? b.end : b.end === null ? a.end : Math.min(a.end, b.end);
  return { start, end };
}

/**
 * The months of `stored` outside `cut`, as 0, 1 or 2 periods in month order:
 * `[stored]` (unchanged) when they do not overlap, `[]` when `cut` covers all of `stored`, one
 * piece when `cut` trims one edge, two when `cut` falls strictly inside. Pieces are plain
 * periods; open ends of `stored` stay open.
 *
 * Only the months the wire form can write count (see {@link WIRE_MONTHS}): a piece that holds
 * none of them is no piece. That happens at the edges only, to an open end of `stored`: a
 * since-always period cut from `0000-01` keeps nothing before it (the months before `0000-01`
 * do not exist on the wire, so "since always .. `0000-00`" is empty, not a period to write),
 * and a period without end cut through `9999-12` keeps nothing after it.
 */
export function subtractPeriod(stored: Period, cut: Period): Period[] {
  if (!periodsOverlap(stored, cut)) return [{ start: stored.start, end: stored.end }];
  const pieces: Period[] = [];
  // startBound(cut) > startBound(stored) implies cut.start !== null (likewise for the end).
  if (cut.start !== null && startBound(stored) < cut.start) {
    pieces.push({ start: stored.start, end: cut.start - 1 });
  }
  if (cut.end !== null && cut.end < endBound(stored)) {
    pieces.push({ start: cut.end + 1, end: stored.end });
  }
  return pieces.filter(holdsWireMonth);
}

/** A stored attribution whose months an incoming period overlaps, and the months it keeps. */
interface PeriodChange<T extends Period> {
  readonly before: T;
  /** What remains of `before`: `[]` (delete), one piece (shorten) or two (split). */
  readonly after: Period[];
}

/** The stored attributions of one slot, divided by an incoming period (see {@link applyOverride}). */
export interface Override<T extends Period> {
  /** Attributions the incoming period does not touch: no write. */
  readonly kept: T[];
  /** Attributions that lose months to the incoming period, in the order given. */
  readonly changed: PeriodChange<T>[];
}

/**
 * The override rule for one slot (one user and dimension, or one user's managers):
 * `stored` are the slot's attributions, pairwise without a shared month; `incoming` is the new
 * period. Each stored attribution either stays as it is or is cut back to its months outside
 * `incoming`. The incoming attribution itself is not part of the answer: the caller writes it.
 */
export function applyOverride<T extends Period>(stored: readonly T[], incoming: Period): Override<T> {
  const kept: T[] = [];
  const changed: PeriodChange<T>[] = [];
  for (const row of stored) {
    if (periodsOverlap(row, incoming)) changed.push({ before: row, after: subtractPeriod(row, incoming) });
    else kept.push(row);
  }
  return { kept, changed };
}

/**
 * The attributions held after writing `upserts` one after the other over `stored`: each
 * upsert overrides the months it covers among the attributions of its slot (`slotOf` names
 * the slot, e.g. a user id and dimension id), then joins them, so the last one written wins
 * its months. A piece of a cut-back row is `{ ...row, start, end }`: rows must be plain
 * objects. The bulk plan (bulkPlan.ts) uses this to see the manager attributions that a request
 * would leave (for the cycle check) before anything is written.
 */
export function applyUpserts<T extends Period>(
  stored: readonly T[],
  upserts: readonly T[],
  slotOf: (row: T) => string,
): T[] {
  const rowsBySlot = new Map<string, T[]>();
  for (const row of stored) pushTo(rowsBySlot, slotOf(row), row);
  for (const upsert of upserts) {
    const slot = slotOf(upsert);
    const { kept, changed } = applyOverride(rowsBySlot.get(slot) ?? [], upsert);
    const remains = changed.flatMap(({ before, after }) => after.map((p) => ({ ...before, ...p })));
    rowsBySlot.set(slot, [...kept, ...remains, upsert]);
  }
  return [...rowsBySlot.values()].flat();
}

function pushTo<T>(groups: Map<string, T[]>, key: string, item: T): void {
  const group = groups.get(key);
  if (group) group.push(item);
  else groups.set(key, [item]);
}
