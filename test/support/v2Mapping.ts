import assert from 'node:assert/strict';
import type { TestServer } from './harness.js';

/**
 * The v1 -> v2 mapping of docs/rules.md#v2-reads, written here from that table (not from the
 * service's renderers), so that the tests hold the service to the documented mapping.
 */

const STANDARD_AMOUNTS = ['payment', 'target', 'on_target_earning', 'achievement'];

/** The status of a statement loaded without one (docs/rules.md#statements): `validated` before the current month (UTC), else `draft`. */
export function defaultStatus(month: string): string {
  return month < new Date().toISOString().slice(0, 7) ? 'validated' : 'draft';
}

/**
 * The statement fields of docs/rules.md#statements, from every v1 record of the tenant (`all`):
 * a record's statement is its user's records of its month; `total_commission` the sum of their
 * payments (exact to the millionth) in their currency, `null` in mixed currencies; the status
 * by `statusOf` (user id, `YYYY-MM`).
 */
export function statementsOf(all: readonly Record<string, any>[], statusOf: (user: string, month: string) => string = (_user, month) => defaultStatus(month)) {
  const keyOf = (v1: Record<string, any>) => `${v1.user.id} ${String(v1.date).slice(0, 7)}`;
  const lines = new Map<string, Record<string, any>[]>();
  for (const v1 of all) lines.set(keyOf(v1), [...(lines.get(keyOf(v1)) ?? []), v1]);
  return (v1: Record<string, any>): Record<string, unknown> => {
    const mine = lines.get(keyOf(v1))!;
    const currencies = new Set(mine.map((line) => line.payment_currency));
    const micros = mine.reduce((sum: number, line) => sum + Math.round(line.payment * 1e6), 0);
    return {
      'standard.status': statusOf(v1.user.id, String(v1.date).slice(0, 7)),
      'standard.total_commission': currencies.size === 1 ? { value: micros / 1e6, currency: v1.payment_currency } : { value: null, currency: null },
    };
  };
}

/**
 * A v1 statement reporting record as v2 shows it (without `standard.last_modified_at`), with its
 * statement's fields by `statement` (see `statementsOf`).
 */
export function v2OfV1Statement(
  v1: Record<string, any>,
  metricKeys: readonly string[],
  dimensionKeys: readonly string[],
  statement: (v1: Record<string, any>) => Record<string, unknown>,
): Record<string, unknown> {
  const amount = (key: string) => ({ value: v1[key], currency: v1[`${key}_currency`] });
  const v2: Record<string, unknown> = {
    'standard.id': v1.id,
    'standard.date': v1.date,
    'standard.plan': v1.plan,
    'standard.user': { id: v1.user.id, email: v1.user.email },
    'standard.target_achievement': v1.target_achievement,
  };
  for (const key of STANDARD_AMOUNTS) v2[`standard.${key}`] = amount(key);
  for (const key of metricKeys) v2[`custom.${key}`] = amount(key);
  for (const key of dimensionKeys) v2[`custom.${key}`] = v1[key];
  return { ...v2, ...statement(v1) };
}

/** A v1 data table record as v2 shows it (without `standard.last_modified_at`); `amounts`: the table's amount fields. */
export function v2OfV1TableRecord(v1: Record<string, any>, amounts: readonly string[]): Record<string, unknown> {
  const v2: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(v1)) {
    if (amounts.some((amountKey) => key === `${amountKey}_currency`)) continue;
    if (key === 'id') v2['standard.id'] = value;
    else v2[`datatable.${key}`] = amounts.includes(key) ? { value, currency: v1[`${key}_currency`] } : value;
  }
  return v2;
}

/** A v2 record without its modification time, and that time. */
export function withoutTime(record: Record<string, unknown>): { fields: Record<string, unknown>; time: string } {
  const { 'standard.last_modified_at': time, ...fields } = record;
  return { fields, time: time as string };
}

type V2Page = { data: Record<string, unknown>[]; meta: { next_start_id: string | null; has_more: boolean; next_url: string | null } };

/** Follows `next_url` from `path` to the last page, checking `meta` on the way. */
export async function walkV2(server: TestServer, key: string, path: string): Promise<{ records: Record<string, unknown>[]; pages: number }> {
  const records: Record<string, unknown>[] = [];
  let pages = 0;
  for (let at: string | null = path; at !== null; ) {
    const response = await server.call('GET', at, { key });
    assert.equal(response.status, 200, response.text);
    const page = response.body as V2Page;
    pages += 1;
    records.push(...page.data);
    assert.equal(page.meta.has_more, page.meta.next_url !== null);
    if (page.meta.has_more) {
      const last = page.data[page.data.length - 1]!;
      assert.equal(page.meta.next_start_id, last['standard.id']);
      assert.equal(new URL(page.meta.next_url!).searchParams.get('start_id'), page.meta.next_start_id);
    } else assert.equal(page.meta.next_start_id, null);
    at = page.meta.next_url === null ? null : page.meta.next_url.slice(server.url.length);
  }
  return { records, pages };
}

