import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { FIRST_MONTH, LAST_MONTH, formatMonth, monthOfDate, parseMonth } from '../../src/domain/months.js';

const months: [string, { given: string; want: number | undefined }][] = [
  ['January 2026', { given: '2026-01', want: 2026 * 12 }],
  ['December 2026', { given: '2026-12', want: 2026 * 12 + 11 }],
  ['the first month of the wire', { given: '0000-01', want: FIRST_MONTH }],
  ['the last month of the wire', { given: '9999-12', want: LAST_MONTH }],
  ['month 13', { given: '2026-13', want: undefined }],
  ['month 00', { given: '2026-00', want: undefined }],
  ['one-digit month', { given: '2026-1', want: undefined }],
  ['two-digit year', { given: '26-01', want: undefined }],
  ['a date', { given: '2026-01-01', want: undefined }],
  ['trailing space', { given: '2026-01 ', want: undefined }],
];
for (const [name, { given, want }] of months) {
  test(`parseMonth: ${name}`, () => assert.equal(parseMonth(given), want));
}

const dates: [string, { given: string; want: number | undefined }][] = [
  ['a plain date', { given: '2026-03-15', want: 2026 * 12 + 2 }],
  ['29 February of a leap year', { given: '2024-02-29', want: 2024 * 12 + 1 }],
  ['29 February of a common year', { given: '2025-02-29', want: undefined }],
  ['29 February 1900 (not leap)', { given: '1900-02-29', want: undefined }],
  ['29 February 2000 (leap)', { given: '2000-02-29', want: 2000 * 12 + 1 }],
  ['31 April', { given: '2026-04-31', want: undefined }],
  ['a month', { given: '2026-04', want: undefined }],
  ['the first day of the wire', { given: '0000-01-01', want: FIRST_MONTH }],
  ['the last day of the wire', { given: '9999-12-31', want: LAST_MONTH }],
];
for (const [name, { given, want }] of dates) {
  test(`monthOfDate: ${name}`, () => assert.equal(monthOfDate(given), want));
}

test('formatMonth and parseMonth are inverse over years 0000-9999', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 9999 * 12 + 11 }), (index) => {
      assert.equal(parseMonth(formatMonth(index)), index);
    }),
  );
});

test('formatMonth at the edges of the wire, and past them', async (t) => {
  assert.equal(formatMonth(FIRST_MONTH), '0000-01');
  assert.equal(formatMonth(LAST_MONTH), '9999-12');
  const outside: [string, number][] = [
    ['the month before 0000-01', FIRST_MONTH - 1],
    ['the month after 9999-12', LAST_MONTH + 1],
    ['not a whole month', 0.5],
    ['not a number', Number.NaN],
  ];
  for (const [name, index] of outside) await t.test(name, () => assert.throws(() => formatMonth(index), RangeError));
});
