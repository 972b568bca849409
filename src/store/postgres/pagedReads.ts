import type { JoinedRows, PagedSource } from '../engine/pagedSource.js';
import { firstRow, rowsOf, statement, storable, textsOf, type Queryable } from './connection.js';
import { recordOf } from './recordParts.js';

/**
 * A page of a source with dense positions (see migrations.ts) is the key range `[from, from + n)`
 * of the primary key, read by an index range scan in one statement (one snapshot), so a deep
 * page costs what the first does: `$1` is the tenant, `$2` the first position, `$3` the number
 * of records. Read as rows, one per record, not as one `string_agg` text: the database then
 * builds no text the size of the page (each a fresh allocation it faults in) and the driver
 * decodes no such text (V8 holds one with any non-ASCII character as two bytes a character):
 * fewer milliseconds on both sides. A page's rows come in binary format ({@link textsOf}) and
 * are written straight into its bytes ({@link joinedTexts}).
 *
 * The range's bounds are written as {@link positionsFrom} says: each one a subquery of its
 * parameters alone (an InitPlan, still the index scan's bound). The planner then estimates a
 * page's rows the same for any bounds, so the plan it makes for the given values costs what the
 * plan for any values (the generic plan) does, and a prepared statement keeps its generic plan
 * after its first five executions instead of planning every page afresh (bounds as plain
 * parameters let each page's own plan estimate its rows from the range's width, always cheaper
 * than the generic plan's estimate, so PostgreSQL would plan every execution).
 */

/** `column >= first AND column < first + count` (both SQL expressions), its bounds hidden from the planner's estimates (see above). */
export const positionsFrom = (column: string, first: string, count: string): string =>
  `${column} >= (SELECT ${first}::bigint) AND ${column} < (SELECT ${first}::bigint + ${count})`;

/**
 * A page of the tenant's reporting records (`$1`) from position `$2`, at most `$3` of them, in
 * position order: each record's stored parts around its user's object, which its user-month row
 * holds (recordParts.ts), then its user's dimension fields of its month, or `$4` (the tenant's
 * empty fields) when the user held no group then. The dimension fields are
 * looked up by their primary key in a LATERAL subquery that the planner may not pull up
 * (`OFFSET 0`): a plain join, planned once for any page (a prepared statement's generic plan),
 * was a hash join that read every dimension value of the tenant for each page, the larger part
 * of a small page's cost, and growing with the tenant. The lookups of a page's repeated users
 * and months are memoized.
 */
const reportingRows = statement<[number, number, number, string], { record: string }>(
  `SELECT ${recordOf('r', 'd', 'coalesce(d.fragment, $4)')} AS record
   FROM reporting_records r
   LEFT JOIN LATERAL (
     SELECT d.user_json, d.fragment FROM dimension_values d
     WHERE d.tenant_id = $1 AND d.user_pk = r.user_pk AND d.month = r.month OFFSET 0) AS d ON true
   WHERE r.tenant_id = $1 AND ${positionsFrom('r.pos', '$2', '$3')} ORDER BY r.pos`,
);
const reportingTotal = statement<[number], { total: number }>('SELECT coalesce(max(pos) + 1, 0) AS total FROM reporting_records WHERE tenant_id = $1');

const tableOf = statement<[number, string], { pk: number }>('SELECT pk FROM data_tables WHERE tenant_id = $1 AND key = $2');
const tableRows = statement<[number, number, number, number], { record: string }>(
  `SELECT r.body AS record FROM table_records r
   WHERE r.tenant_id = $1 AND r.table_pk = $4 AND ${positionsFrom('r.pos', '$2', '$3')} ORDER BY r.pos`,
);
const tableTotal = statement<[number, number], { total: number }>(
  'SELECT coalesce(max(pos) + 1, 0) AS total FROM table_records WHERE tenant_id = $1 AND table_pk = $2',
);

const records = (rows: { record: string }[]) => rows.map((row) => row.record);

const COMMA = 0x2c;
/** A page from up to `n + 1` records read from its first position (the extra one says whether more follow), written as UTF-8. */
export function joinedTexts(found: string[], n: number): JoinedRows {
  const count = Math.min(found.length, n);
  let length = Math.max(count - 1, 0);
  for (let i = 0; i < count; i += 1) length += Buffer.byteLength(found[i]!);
  const json = Buffer.allocUnsafe(length);
  let at = 0;
  for (let i = 0; i < count; i += 1) {
    if (i > 0) json[at++] = COMMA;
    at += json.write(found[i]!, at);
  }
  return { count, json, more: found.length > n };
}

/** The paged reads of reporting records and table records, over a pool or a transaction's connection. */
export const pagedReads = {
  /** The statement reporting records of a tenant (`emptyFragment`: see keys.ts Principal). */
  reporting(db: Queryable, tenantId: number, emptyFragment: string): PagedSource {
    return {
      rows: async (from, n) => records(await rowsOf(db, reportingRows, tenantId, from, n, emptyFragment)),
      joined: async (from, n) => joinedTexts(await textsOf(db, reportingRows, tenantId, from, n + 1, emptyFragment), n),
      total: async () => (await firstRow(db, reportingTotal, tenantId))!.total,
    };
  },
  /** The records of a data table of a tenant, or `undefined` when the tenant has no such table. */
  async tableRecords(db: Queryable, tenantId: number, tableKey: string): Promise<PagedSource | undefined> {
    const table = storable(tableKey) ? await firstRow(db, tableOf, tenantId, tableKey) : undefined;
    if (!table) return undefined;
    return {
      rows: async (from, n) => records(await rowsOf(db, tableRows, tenantId, from, n, table.pk)),
      joined: async (from, n) => joinedTexts(await textsOf(db, tableRows, tenantId, from, n + 1, table.pk), n),
      total: async () => (await firstRow(db, tableTotal, tenantId, table.pk))!.total,
    };
  },
};
