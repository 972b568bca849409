import type { V2Reads } from '../paging/v2Paging.js';
import { firstRow, rowsOf, statement, storable, type Queryable } from './connection.js';

/**
 * The v2 reads on PostgreSQL (see ../sqlite/migrations.ts, 8, and ../sqlite/v2Reads.ts): the
 * stored v2 texts joined with their dimension fields and the time of their last change (the
 * later of the record's and its dimension fields', both stored beside their stamps), a page
 * read in one statement by position. `$1` is always the tenant.
 */

/** A record's v2 text: its stored body, then its `tail` (the dimension fields, if any) and the time of its last change (`time`), the small parts joined first. */
const withTime = (body: string, time: string, tail?: string) =>
  `${body} || (${tail ? `${tail} || ` : ''}',"standard.last_modified_at":"' || ${time} || '"}')`;

const STATEMENT_TIME = 'greatest(r.changed_at, d.changed_at)';
const STATEMENT = withTime('r.body_v2', STATEMENT_TIME, 'coalesce(d.fragment_v2, (SELECT empty_fragment_v2 FROM tenant_state WHERE tenant_id = $1))');
const STATEMENTS_FROM = `reporting_records r
  LEFT JOIN dimension_values d ON d.tenant_id = r.tenant_id AND d.user_pk = r.user_pk AND d.month = r.month
  WHERE r.tenant_id = $1`;
const TABLE_RECORD = withTime('r.body_v2', 'r.changed_at');
const TABLE_FROM = 'table_records r WHERE r.tenant_id = $1 AND r.table_pk = $4';

type JoinedRow = { count: number; json: string | null; more: boolean };
type Row = { record: string; id: string };

/** Records at positions `$2`..`$2 + $3 - 1`, joined in position order, and whether more follow. */
function joined(record: string, from: string, next: string) {
  return statement<[number, number, number, ...unknown[]], JoinedRow>(
    `SELECT count(*)::integer AS count, string_agg(${record}, ',' ORDER BY r.pos) AS json,
            EXISTS (SELECT 1 FROM ${next} AND pos = $2::bigint + $3) AS more
     FROM ${from} AND r.pos >= $2 AND r.pos < $2::bigint + $3`,
  );
}
const joinedStatements = joined(STATEMENT, STATEMENTS_FROM, 'reporting_records WHERE tenant_id = $1');
const joinedTable = joined(TABLE_RECORD, TABLE_FROM, 'table_records WHERE tenant_id = $1 AND table_pk = $4');
/** Up to `$5` records from position `$2` whose time of last change is after `$3` and before `$4`. */
const changedStatements = statement<[number, number, string, string, number], Row>(
  `SELECT ${STATEMENT} AS record, r.id FROM ${STATEMENTS_FROM} AND r.pos >= $2
     AND ${STATEMENT_TIME} > $3 AND ${STATEMENT_TIME} < $4 ORDER BY r.pos LIMIT $5`,
);
const changedTable = statement<[number, number, string, string, number, number], Row>(
  `SELECT ${TABLE_RECORD} AS record, r.id FROM table_records r WHERE r.tenant_id = $1 AND r.table_pk = $6 AND r.pos >= $2
     AND r.changed_at > $3 AND r.changed_at < $4 ORDER BY r.pos LIMIT $5`,
);
const statementPosition = statement<[number, string], { pos: number | null }>(
  `SELECT coalesce((SELECT pos FROM reporting_records WHERE tenant_id = $1 AND id = $2),
                   (SELECT pos FROM removed_records WHERE tenant_id = $1 AND structure = '' AND id = $2)) AS pos`,
);
const tableRecordPosition = statement<[number, number, string, string], { pos: number | null }>(
  `SELECT coalesce((SELECT pos FROM table_records WHERE tenant_id = $1 AND table_pk = $2 AND id = $4),
                   (SELECT pos FROM removed_records WHERE tenant_id = $1 AND structure = $3 AND id = $4)) AS pos`,
);
const tableOf = statement<[number, string], { pk: number }>('SELECT pk FROM data_tables WHERE tenant_id = $1 AND key = $2');
const statementAt = statement<[number, number], { id: string }>('SELECT id FROM reporting_records WHERE tenant_id = $1 AND pos = $2');
const tableRecordAt = statement<[number, number, number], { id: string }>('SELECT id FROM table_records WHERE tenant_id = $1 AND table_pk = $2 AND pos = $3');

const page = (row: JoinedRow | undefined) => ({
  count: row?.count ?? 0,
  json: row?.json ? Buffer.from(row.json, 'utf8') : Buffer.alloc(0),
  more: row?.more === true,
});
const keyed = (rows: Row[]): [string, string][] => rows.map((row) => [row.record, row.id]);
/** Text PostgreSQL cannot hold (U+0000) was never a record id. */
const position = async (found: Promise<{ pos: number | null } | undefined>) => (await found)?.pos ?? undefined;

export const v2Reads = {
  statements: (db: Queryable, tenant: number): V2Reads => ({
    positionOf: (id) => (storable(id) ? position(firstRow(db, statementPosition, tenant, id)) : undefined),
    joined: async (from, n) => page(await firstRow(db, joinedStatements, tenant, from, n)),
    idAt: async (position) => (await firstRow(db, statementAt, tenant, position))!.id,
    changedBetween: async (from, after, before, n) => keyed(await rowsOf(db, changedStatements, tenant, from, after, before, n)),
  }),
  async tableRecords(db: Queryable, tenant: number, key: string): Promise<V2Reads | undefined> {
    const table = storable(key) ? (await firstRow(db, tableOf, tenant, key))?.pk : undefined;
    if (table === undefined) return undefined;
    return {
      positionOf: (id) => (storable(id) ? position(firstRow(db, tableRecordPosition, tenant, table, key, id)) : undefined),
      joined: async (from, n) => page(await firstRow(db, joinedTable, tenant, from, n, table)),
      idAt: async (position) => (await firstRow(db, tableRecordAt, tenant, table, position))!.id,
      changedBetween: async (from, after, before, n) => keyed(await rowsOf(db, changedTable, tenant, from, after, before, n, table)),
    };
  },
};
