import fc from 'fast-check';
import type { Period } from '../../src/domain/periods.js';

/**
 * The model the interval property tests check against: finite months are drawn from
 * FIRST..LAST; the model spans LOW..HIGH, strictly wider, so an open end (null) stands for
 * "every month of the model" on its side.
 */
export const [LOW, FIRST, LAST, HIGH] = [0, 10, 30, 40] as const;
export const RUNS = 1000;
export const modelMonths = Array.from({ length: HIGH - LOW + 1 }, (_, i) => LOW + i);
export const covers = (p: Period, m: number) => (p.start ?? LOW) <= m && m <= (p.end ?? HIGH);

/** A period edge: a month of FIRST..LAST, or null (open) 1 time in 4. */
export const edgeMonthArb = fc.option(fc.integer({ min: FIRST, max: LAST }), { freq: 4 });
export const periodArb: fc.Arbitrary<Period> = fc
  .tuple(edgeMonthArb, edgeMonthArb)
  .map(([a, b]) => (a !== null && b !== null && a > b ? { start: b, end: a } : { start: a, end: b }));
