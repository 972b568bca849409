/**
 * Calendar months as integers: `year * 12 + (month - 1)`. Integers compare, subtract and index
 * cheaply in SQL and JS alike; `YYYY-MM` is only the wire form.
 */
export type MonthIndex = number;

/**
 * The first and last months the wire form can write: `0000-01` and `9999-12` (four-digit
 * years). Every month the service stores or renders lies between them, both included.
 */
export const FIRST_MONTH: MonthIndex = 0;
export const LAST_MONTH: MonthIndex = 9999 * 12 + 11;

const MONTH_PATTERN = /^(\d{4})-(0[1-9]|1[0-2])$/;
const DATE_PATTERN = /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

/** `2026-03` -> index, or `undefined` when the text is not a `YYYY-MM` month. */
export function parseMonth(text: string): MonthIndex | undefined {
  const match = MONTH_PATTERN.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * 12 + Number(match[2]) - 1;
}

/**
 * Index -> `2026-03`. Throws a `RangeError` for an index outside FIRST_MONTH..LAST_MONTH:
 * there is no wire form for it (it would come out as `0000-00` or `10000-01`), so asking for
 * one is a bug upstream, better loud than a month outside the contract.
 */
export function formatMonth(index: MonthIndex): string {
  if (!Number.isInteger(index) || index < FIRST_MONTH || index > LAST_MONTH) {
    throw new RangeError(`no YYYY-MM month has the index ${index}`);
  }
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}`;
}

/** The month of a `YYYY-MM-DD` calendar date that exists, or `undefined`. */
export function monthOfDate(text: string): MonthIndex | undefined {
  const match = DATE_PATTERN.exec(text);
  if (!match) return undefined;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (day > daysInMonth(year, month)) return undefined;
  return year * 12 + month - 1;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
}
