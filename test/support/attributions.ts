import assert from 'node:assert/strict';
import type { TestServer } from './harness.js';

/**
 * Helpers of the attribution tests: a model that holds one value per slot and month, written
 * month by month (independent of the period arithmetic under test), and a walker of the paged
 * read-backs. The model looks at the months it is given, WINDOW's by default (tests that use
 * it write no month outside); an open end stands for every month given on its side. A test
 * over the whole wire range gives the months where its state can change instead
 * (`boundaryMonths` of monthModel.ts).
 */
const monthIndex = (text: string) => Number(text.slice(0, 4)) * 12 + Number(text.slice(5, 7)) - 1;
export const WINDOW = { first: monthIndex('2020-01'), last: monthIndex('2035-12') };
const windowMonths = Array.from({ length: WINDOW.last - WINDOW.first + 1 }, (_, i) => WINDOW.first + i);

export function monthText(index: number): string {
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** The months of `months` in a period given as wire months (`null`: open on that side). */
function monthsOf(start: string | null | undefined, end: string | null | undefined, months: readonly number[] = windowMonths): number[] {
  const from = start ? monthIndex(start) : -Infinity;
  const to = end ? monthIndex(end) : Infinity;
  return months.filter((m) => m >= from && m <= to);
}

/** What each slot holds in each month, written the way docs/rules.md#bulk-attributions says: the last write of a month wins it. */
export class SlotModel {
  private readonly slots = new Map<string, Map<number, string>>();

  /** `months`: the months the model looks at. */
  constructor(private readonly months: readonly number[] = windowMonths) {}

  put(slot: string, value: string, start: string | null | undefined, end: string | null | undefined): void {
    const months = this.slots.get(slot) ?? new Map<number, string>();
    this.slots.set(slot, months);
    for (const month of monthsOf(start, end, this.months)) months.set(month, value);
  }

  at(slot: string, month: number): string | undefined {
    return this.slots.get(slot)?.get(month);
  }

  /** Every slot's months as `slot|month -> value`, for comparing whole states. */
  snapshot(): Map<string, string> {
    const all = new Map<string, string>();
    for (const [slot, months] of this.slots) for (const [month, value] of months) all.set(`${slot}|${month}`, value);
    return all;
  }
}

export interface PeriodRow {
  start_date: string | null;
  end_date: string | null;
}

/**
 * The month-by-month state that read-back rows describe in `months`, as `slot|month -> value`;
 * fails when a slot holds two values in one month (docs/rules.md#bulk-attributions: never after a successful request).
 */
export function stateOfRows<T extends PeriodRow>(
  rows: readonly T[],
  slotOf: (row: T) => string,
  valueOf: (row: T) => string,
  months: readonly number[] = windowMonths,
) {
  const state = new Map<string, string>();
  for (const row of rows) {
    for (const month of monthsOf(row.start_date, row.end_date, months)) {
      const cell = `${slotOf(row)}|${month}`;
      assert.ok(!state.has(cell), `two values in ${slotOf(row)} in ${monthText(month)}: ${state.get(cell)} and ${valueOf(row)}`);
      state.set(cell, valueOf(row));
    }
  }
  return state;
}

/** Every item of a read-back, following `next` from `path` (each page checked against the contract). */
export async function readAll(server: TestServer, key: string, path: string): Promise<any[]> {
  const items: any[] = [];
  for (let next: string | undefined = path; next !== undefined; ) {
    const page = await server.call('GET', next, { key });
    assert.equal(page.status, 200, page.text);
    items.push(...page.body.data);
    next = page.body.next?.slice(server.url.length);
  }
  return items;
}

export const groupSlot = (row: { user: string; group_dimension: string }) => `${row.user.toLowerCase()}/${row.group_dimension}`;
export const managerSlot = (row: { user: string }) => row.user.toLowerCase();
