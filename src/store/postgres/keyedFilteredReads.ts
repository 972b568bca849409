import { asciiLowerCase } from '../../domain/emailKey.js';
import { dateRange, type ReportingFilter } from '../../domain/reportingFilter.js';
import type { KeyedFilteredReads } from '../engine/keyedReads.js';
import type { KeyedRow } from '../engine/pagedSource.js';
import { firstRow, rowsOf, statement, storable, type Queryable, type Statement } from './connection.js';
import { CONDITIONS, FILTERS, monthsPresent, windowOfMonths, type FilterName } from './filteredReporting.js';
import { grants, keyOfTenant, keyText, storedKey, unread } from './keyedReads.js';
import { recordOf } from './recordParts.js';

type Row = { record: string; pos: number };

/**
 * filteredReporting.ts's statements of one set of filters with the key check inside (as
 * keyedReads.ts checks it): the key's row first (position -1), then the records, read only when
 * the key grants them; the user looked up by its email key and the window of positions of the
 * date range found in the same statement, the tenant's empty fields taken from the key's row.
 * `$1` the tenant, `$2` the key's id, `$3` the hash of the secret, then the filters' values in
 * filteredReporting.ts's order (the user's email key in place of its key).
 */
function keyedShape(given: readonly FilterName[]) {
  let next = 3;
  const numbered = (condition: string) => condition.replace(/\$(?!\d)/g, () => `$${(next += 1)}`);
  const parts = [keyOfTenant];
  const where = ['(SELECT granted FROM k)', 'r.tenant_id = $1'];
  if (given.includes('user')) {
    parts.push(`u AS MATERIALIZED (SELECT pk FROM users WHERE tenant_id = $1 AND ${numbered('email_key = $')} AND (SELECT granted FROM k))`);
    where.push('r.user_pk = (SELECT pk FROM u)');
  }
  if (given.includes('plan')) where.push(...CONDITIONS.plan.map(numbered));
  if (given.includes('date')) {
    const [firstMonth, lastMonth] = [`$${next + 1}`, `$${next + 2}`];
    parts.push(monthsPresent(firstMonth, lastMonth, '(SELECT granted FROM k)'), `w AS MATERIALIZED (${windowOfMonths(lastMonth)})`);
    where.push('r.pos BETWEEN (SELECT first FROM w) AND (SELECT last FROM w)', ...CONDITIONS.date.map(numbered));
  }
  const matching = where.join(' AND ');
  const page = next;
  return {
    rows: statement<unknown[], Row>(
      `WITH RECURSIVE ${parts.join(', ')}
       SELECT ${keyText()} AS record, -1 AS pos FROM k
       UNION ALL
       (SELECT ${recordOf('r', 'd', 'coalesce(d.fragment, (SELECT empty_fragment FROM k))')} AS record, r.pos
        FROM reporting_records r
        LEFT JOIN dimension_values d ON d.tenant_id = r.tenant_id AND d.user_pk = r.user_pk AND d.month = r.month
        WHERE ${matching} AND r.pos > $${page + 1} ORDER BY r.pos LIMIT $${page + 2} OFFSET $${page + 3})`,
    ),
    total: statement<unknown[], { key: string; total: number | null }>(
      `WITH RECURSIVE ${parts.join(', ')}
       SELECT ${keyText()} AS key, CASE WHEN k.granted THEN (SELECT count(*) FROM reporting_records r WHERE ${matching}) END AS total
       FROM k`,
    ),
  };
}

/** Every combination of filters, written once (so that each statement is known from the start). */
const SHAPES = new Map(
  Array.from({ length: 2 ** FILTERS.length - 1 }, (_, i) => FILTERS.filter((_, bit) => ((i + 1) >> bit) & 1)).map((given) => [given.join(','), keyedShape(given)]),
);

/** The statements of `filter` and their values; `undefined` for a user PostgreSQL cannot hold (the plain read answers it: no such user). */
function shapeOf(filter: ReportingFilter): { shape: ReturnType<typeof keyedShape>; values: unknown[] } | undefined {
  const values: unknown[] = [];
  const given: FilterName[] = [];
  if (filter.user !== undefined) {
    if (!storable(filter.user)) return undefined;
    given.push('user');
    values.push(asciiLowerCase(filter.user));
  }
  if (filter.plan !== undefined) {
    given.push('plan');
    values.push(JSON.stringify(filter.plan));
  }
  const dates = dateRange(filter);
  if (dates) {
    given.push('date');
    values.push(dates.firstMonth, dates.lastMonth, dates.firstMonth, dates.lastMonth, dates.from, dates.to);
  }
  return { shape: SHAPES.get(given.join(','))!, values };
}

/** The reads of ../engine/keyedReads.ts's `KeyedFilteredReads`, over a pool. */
export function keyedFilteredReads(db: Queryable): KeyedFilteredReads {
  return {
    async filteredRows(keyId, secretHash, tenantId, filter, after, skip, n) {
      const found = shapeOf(filter);
      if (!found) return unread;
      const rows = await rowsOf(db, found.shape.rows, tenantId, keyId, secretHash, ...found.values, after, n, skip);
      const at = rows.findIndex((row) => row.pos === -1);
      if (at < 0) return unread;
      const { key } = storedKey(tenantId, rows.splice(at, 1)[0]!.record);
      if (!grants(key, secretHash)) return { key, value: undefined };
      return { key, value: rows.map(({ record, pos }): KeyedRow => [record, String(pos)]) };
    },
    async filteredTotal(keyId, secretHash, tenantId, filter) {
      const found = shapeOf(filter);
      if (!found) return unread;
      const row = await firstRow(db, found.shape.total as Statement<unknown[], { key: string; total: number | null }>, tenantId, keyId, secretHash, ...found.values);
      if (!row) return unread;
      const { key } = storedKey(tenantId, row.key);
      if (!grants(key, secretHash) || row.total === null) return { key, value: undefined };
      return { key, value: row.total };
    },
  };
}
