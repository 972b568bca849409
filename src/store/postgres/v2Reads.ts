import type { V2Reads } from '../engine/readSteps.js';
import { firstRow, rowsOf, statement, storable, textsOf, type Queryable } from './connection.js';
import { joinedTexts, positionsFrom } from './pagedReads.js';
import { recordV2Of } from './recordParts.js';

/**
 * The v2 reads on PostgreSQL (see ../sqlite/migrations.ts, 8, and ../sqlite/v2Reads.ts): the
 * stored v2 texts joined with their statement's fields (migrations 19 and 20), their dimension
 * fields and the time of their last change (the latest of the record's, its dimension fields'
 * and its statement's, each stored beside its stamp), a page
 * read in one statement by position. `$1` is always the tenant.
 */

/** The end of a record's v2 text: the time of its last change (`time`) and the closing brace. */
const lastModified = (time: string) => `',"standard.last_modified_at":"' || ${time} || '"}'`;

const STATEMENT_TIME = 'greatest(r.changed_at, d.changed_at, s.changed_at)';
/** The statement's fields (migrations 19 and 20), then the dimension fields. */
const STATEMENT = recordV2Of(
  'r',
  'd',
  `(coalesce(s.fields_v2, '') || coalesce(d.fragment_v2, (SELECT empty_fragment_v2 FROM tenant_state WHERE tenant_id = $1)) || ${lastModified(STATEMENT_TIME)})`,
);
const STATEMENTS_FROM = `reporting_records r
  LEFT JOIN dimension_values d ON d.tenant_id = r.tenant_id AND d.user_pk = r.user_pk AND d.month = r.month
  LEFT JOIN statements s ON s.tenant_id = r.tenant_id AND s.user_pk = r.user_pk AND s.month = r.month
  WHERE r.tenant_id = $1`;
/** A table record's v2 text: its stored body, then its time (the small parts joined first). */
const TABLE_RECORD = `r.body_v2 || (${lastModified('r.changed_at')})`;

type Row = { record: string; id: string };

/**
 * The records at positions `first`..`first + count - 1` (`count`: the records wanted and one more,
 * which says whether more follow; both SQL expressions), one row each in position order, read as
 * v1's pages are (pagedReads.ts):
 * rows in binary format written straight into the page's bytes, each record's dimension fields
 * and statement looked up by key in LATERAL subqueries the planner may not pull up (a plain join,
 * planned once for any page, read every dimension value of the tenant for each page).
 */
export const statementPage = (first: string, count: string) =>
  `SELECT ${STATEMENT} AS record
   FROM reporting_records r
   LEFT JOIN LATERAL (
     SELECT d.user_v2, d.fragment_v2, d.changed_at FROM dimension_values d
     WHERE d.tenant_id = $1 AND d.user_pk = r.user_pk AND d.month = r.month OFFSET 0) AS d ON true
   LEFT JOIN LATERAL (
     SELECT s.fields_v2, s.changed_at FROM statements s
     WHERE s.tenant_id = $1 AND s.user_pk = r.user_pk AND s.month = r.month OFFSET 0) AS s ON true
   WHERE r.tenant_id = $1 AND ${positionsFrom('r.pos', first, count)} ORDER BY r.pos`;
/** The records of the data table `table` at positions `first`.. as {@link statementPage} reads the statements' (SQL expressions all). */
export const tablePage = (table: string, first: string, count: string) =>
  `SELECT ${TABLE_RECORD} AS record FROM table_records r WHERE r.tenant_id = $1 AND r.table_pk = ${table} AND ${positionsFrom('r.pos', first, count)} ORDER BY r.pos`;
const statementRows = statement<[number, number, number], { record: string }>(statementPage('$2', '$3'));
const tableRows = statement<[number, number, number, number], { record: string }>(tablePage('$4', '$2', '$3'));
/** Up to `$5` records from position `$2` whose time of last change is after `$3` and before `$4`. */
const changedStatements = statement<[number, number, string, string, number], Row>(
  `SELECT ${STATEMENT} AS record, r.id FROM ${STATEMENTS_FROM} AND r.pos >= $2
     AND ${STATEMENT_TIME} > $3 AND ${STATEMENT_TIME} < $4 ORDER BY r.pos LIMIT $5`,
);
const changedTable = statement<[number, number, string, string, number, number], Row>(
  `SELECT ${TABLE_RECORD} AS record, r.id FROM table_records r WHERE r.tenant_id = $1 AND r.table_pk = $6 AND r.pos >= $2
     AND r.changed_at > $3 AND r.changed_at < $4 ORDER BY r.pos LIMIT $5`,
);
/** The position of the statement record `id` (an SQL expression), or of where it stood when removed; null when none ever had it. */
export const statementPositionOf = (id: string) =>
  `coalesce((SELECT pos FROM reporting_records WHERE tenant_id = $1 AND id = ${id}),
            (SELECT pos FROM removed_records WHERE tenant_id = $1 AND structure = '' AND id = ${id}))`;
/** The position of the record `id` of the data table `table` whose key is `key`, as {@link statementPositionOf} (SQL expressions all). */
export const tableRecordPositionOf = (table: string, key: string, id: string) =>
  `coalesce((SELECT pos FROM table_records WHERE tenant_id = $1 AND table_pk = ${table} AND id = ${id}),
            (SELECT pos FROM removed_records WHERE tenant_id = $1 AND structure = ${key} AND id = ${id}))`;
const statementPosition = statement<[number, string], { pos: number | null }>(`SELECT ${statementPositionOf('$2')} AS pos`);
const tableRecordPosition = statement<[number, number, string, string], { pos: number | null }>(`SELECT ${tableRecordPositionOf('$2', '$3', '$4')} AS pos`);
const tableOf = statement<[number, string], { pk: number }>('SELECT pk FROM data_tables WHERE tenant_id = $1 AND key = $2');
const statementAt = statement<[number, number], { id: string }>('SELECT id FROM reporting_records WHERE tenant_id = $1 AND pos = $2');
const tableRecordAt = statement<[number, number, number], { id: string }>('SELECT id FROM table_records WHERE tenant_id = $1 AND table_pk = $2 AND pos = $3');

/** The records of one statement (its user's and month's lines), in their order, joined by commas. */
const statementRecords = statement<[number, number, number], { count: number; json: string | null }>(
  `SELECT count(*)::integer AS count, string_agg(record, ',' ORDER BY pos) AS json FROM (
     SELECT ${STATEMENT} AS record, r.pos FROM ${STATEMENTS_FROM} AND r.user_pk = $2 AND r.month = $3) AS lines`,
);

/** The records of one statement rendered as the v2 reads render them, in their order, joined by commas. */
export async function statementRecordsOf(db: Queryable, tenant: number, userPk: number, month: number): Promise<{ count: number; json: string }> {
  const { count, json } = (await firstRow(db, statementRecords, tenant, userPk, month))!;
  return { count, json: json ?? '' };
}

const keyed = (rows: Row[]): [string, string][] => rows.map((row) => [row.record, row.id]);
/** Text PostgreSQL cannot hold (U+0000) was never a record id. */
const position = async (found: Promise<{ pos: number | null } | undefined>) => (await found)?.pos ?? undefined;

export const v2Reads = {
  statements: (db: Queryable, tenant: number): V2Reads => ({
    positionOf: (id) => (storable(id) ? position(firstRow(db, statementPosition, tenant, id)) : undefined),
    joined: async (from, n) => joinedTexts(await textsOf(db, statementRows, tenant, from, n + 1), n),
    idAt: async (position) => (await firstRow(db, statementAt, tenant, position))!.id,
    changedBetween: async (from, after, before, n) => keyed(await rowsOf(db, changedStatements, tenant, from, after, before, n)),
  }),
  async tableRecords(db: Queryable, tenant: number, key: string): Promise<V2Reads | undefined> {
    const table = storable(key) ? (await firstRow(db, tableOf, tenant, key))?.pk : undefined;
    if (table === undefined) return undefined;
    return {
      positionOf: (id) => (storable(id) ? position(firstRow(db, tableRecordPosition, tenant, table, key, id)) : undefined),
      joined: async (from, n) => joinedTexts(await textsOf(db, tableRows, tenant, from, n + 1, table), n),
      idAt: async (position) => (await firstRow(db, tableRecordAt, tenant, table, position))!.id,
      changedBetween: async (from, after, before, n) => keyed(await rowsOf(db, changedTable, tenant, from, after, before, n, table)),
    };
  },
};
