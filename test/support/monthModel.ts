import fc from 'fast-check';
import { FIRST_MONTH, LAST_MONTH } from '../../src/domain/months.js';
import type { Period } from '../../src/domain/periods.js';

/**
 * The models the interval property tests check against, month by month.
 *
 * The small model: finite months are drawn from FIRST..LAST; the model spans LOW..HIGH,
 * strictly wider, so an open end (null) stands for "every month of the model" on its side.
 *
 * The wire range: every month the wire form can write, `0000-01`..`9999-12` (FIRST_MONTH..
 * LAST_MONTH), with its edges drawn often. Too many months to walk, so each case is checked
 * at the months where a state built from its periods can change (see {@link boundaryMonths}).
 */
const [LOW, FIRST, LAST, HIGH] = [0, 10, 30, 40] as const;
export const RUNS = 1000;
const modelMonths = Array.from({ length: HIGH - LOW + 1 }, (_, i) => LOW + i);
/** Whether `p` holds month `m`: an open end holds every month on its side. */
export const covers = (p: Period, m: number) => (p.start === null || p.start <= m) && (p.end === null || m <= p.end);

/** Periods from two drawn edges, put in order (null: open). */
const periodOf = (edge: fc.Arbitrary<number | null>): fc.Arbitrary<Period> =>
  fc.tuple(edge, edge).map(([a, b]) => (a !== null && b !== null && a > b ? { start: b, end: a } : { start: a, end: b }));

/** A period edge: a month of FIRST..LAST, or null (open) 1 time in 4. */
const edgeMonthArb = fc.option(fc.integer({ min: FIRST, max: LAST }), { freq: 4 });
const periodArb: fc.Arbitrary<Period> = periodOf(edgeMonthArb);

/** Months of the wire range that tests draw often: both edges, their neighbours, and a few in between. */
const EDGE_MONTHS = [FIRST_MONTH, FIRST_MONTH + 1, FIRST_MONTH + 2, 2026 * 12, 2026 * 12 + 1, LAST_MONTH - 2, LAST_MONTH - 1, LAST_MONTH];
/** A month of the wire range: one of EDGE_MONTHS 3 times in 4, else any. */
const wireMonthArb = fc.oneof(
  { arbitrary: fc.constantFrom(...EDGE_MONTHS), weight: 3 },
  { arbitrary: fc.integer({ min: FIRST_MONTH, max: LAST_MONTH }), weight: 1 },
);
export const wirePeriodArb: fc.Arbitrary<Period> = periodOf(fc.option(wireMonthArb, { freq: 4 }));

/**
 * The months of the wire range where a state built from `periods` (which of them hold each
 * month) can change: both edges of the range, and each period's first and last months with
 * the months just outside them. Such a state is the same in every month between two of these,
 * so checking these checks every month.
 */
export function boundaryMonths(periods: readonly Period[]): number[] {
  const months = new Set<number>([FIRST_MONTH, LAST_MONTH]);
  for (const { start, end } of periods) {
    for (const m of [start, end]) if (m !== null) [m - 1, m, m + 1].forEach((n) => months.add(n));
  }
  return [...months].filter((m) => m >= FIRST_MONTH && m <= LAST_MONTH).sort((a, b) => a - b);
}

/** Where a property draws its periods, and the months it checks them at. */
export interface MonthUniverse {
  readonly name: string;
  readonly periodArb: fc.Arbitrary<Period>;
  /** Every month worth checking for a case made of `periods`, in order. */
  monthsFor: (periods: readonly Period[]) => readonly number[];
}

export const UNIVERSES: readonly MonthUniverse[] = [
  { name: 'small model', periodArb, monthsFor: () => modelMonths },
  { name: 'wire range 0000-01..9999-12', periodArb: wirePeriodArb, monthsFor: boundaryMonths },
];
