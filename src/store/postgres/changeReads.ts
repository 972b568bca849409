import type { ChangeReads, ChangeRow, ResumeBounds } from '../engine/readSteps.js';
import { CHANGE_COUNTER } from './changeStamps.js';
import { firstRow, rowsOf, statement, storable, type Queryable } from './connection.js';
import { recordOf } from './recordParts.js';

type Row = { stamp: number; stream: 0 | 1; a: number; b: number; c: number; json: string };
/** `$1` the tenant, `$2..$5` where the dimension-fields stream resumes, `$6, $7` where the record stream resumes, `$8` rows wanted. */
type Bounds = [number, number, number, number, number, number, number, number];

const bound = (tenantId: number, { fields, records }: ResumeBounds, n: number): Bounds => [tenantId, ...fields, ...records, n];
const changeRows = (rows: Row[]): ChangeRow[] => rows.map((row) => [row.stamp, row.stream, row.a, row.b, row.c, row.json]);

/**
 * The reads of incremental sync on PostgreSQL: the same two streams as on SQLite
 * (../sqlite/changeReads.ts), each read along an index from where the walk resumes, merged in
 * one statement (one snapshot). The records of each dimension-fields row are a LATERAL
 * subquery, so that the planner walks the rows in index order and stops at the page's end
 * (a plain join let it hash-join every record of the tenant when many rows share a stamp).
 */
const reporting = statement<[...Bounds, string], Row>(
  `SELECT * FROM (
     SELECT d.stamp, 0 AS stream, d.user_pk AS a, d.month AS b, r.pos AS c, ${recordOf('r', 'd', 'd.fragment')} AS json
     FROM dimension_values d
     CROSS JOIN LATERAL (
       SELECT r.pos, r.head, r.tail FROM reporting_records r
       WHERE r.tenant_id = $1 AND r.user_pk = d.user_pk AND r.month = d.month AND r.stamp < d.stamp
         AND (d.stamp, d.user_pk, d.month, r.pos) > ($2::bigint, $3::bigint, $4::bigint, $5::bigint)
       ORDER BY r.pos) AS r
     WHERE d.tenant_id = $1 AND (d.stamp, d.user_pk, d.month) >= ($2::bigint, $3::bigint, $4::bigint)
     ORDER BY d.stamp, d.user_pk, d.month, r.pos LIMIT $8) AS fields
   UNION ALL
   SELECT * FROM (
     SELECT r.stamp, 1 AS stream, r.pos AS a, 0::bigint AS b, 0::bigint AS c, ${recordOf('r', 'd', 'coalesce(d.fragment, $9)')} AS json
     FROM reporting_records r
     LEFT JOIN dimension_values d ON d.tenant_id = r.tenant_id AND d.user_pk = r.user_pk AND d.month = r.month
     WHERE r.tenant_id = $1 AND (r.stamp, r.pos) > ($6::bigint, $7::bigint) AND r.stamp >= coalesce(d.stamp, 0)
     ORDER BY r.stamp, r.pos LIMIT $8) AS records
   ORDER BY 1, 2, 3, 4, 5 LIMIT $8`,
);
const tableOf = statement<[number, string], { pk: number }>('SELECT pk FROM data_tables WHERE tenant_id = $1 AND key = $2');
/** `$1` the tenant, `$2` the table, `$3, $4` where the walk resumes, `$5` rows wanted. */
const tableRecords = statement<[number, number, number, number, number], Row>(
  `SELECT stamp, 1 AS stream, pos AS a, 0 AS b, 0 AS c, body AS json FROM table_records
   WHERE tenant_id = $1 AND table_pk = $2 AND (stamp, pos) > ($3::bigint, $4::bigint)
   ORDER BY stamp, pos LIMIT $5`,
);
const state = statement<[number], { seq: number; resyncFrom: number }>(`SELECT ${CHANGE_COUNTER} AS seq, resync_from AS "resyncFrom" FROM tenant_state WHERE tenant_id = $1`);
/** A table's records replaced by an import (migration 9) call for a new sync of that table only. */
const tableState = statement<[number, number], { seq: number; resyncFrom: number }>(
  `SELECT ${CHANGE_COUNTER} AS seq, greatest(t.resync_from, d.resync_from) AS "resyncFrom" FROM data_tables d JOIN tenant_state t ON t.tenant_id = d.tenant_id
   WHERE d.tenant_id = $1 AND d.pk = $2`,
);

export const changeReads = {
  /** The statement reporting records of a tenant (`emptyFragment`: see keys.ts Principal). */
  reporting: (db: Queryable, tenantId: number, emptyFragment: string): ChangeReads => ({
    state: async () => (await firstRow(db, state, tenantId))!,
    rows: async (bounds, n) => changeRows(await rowsOf(db, reporting, ...bound(tenantId, bounds, n), emptyFragment)),
  }),
  /** The records of a data table of a tenant, or `undefined` when the tenant has no such table. */
  async tableRecords(db: Queryable, tenantId: number, tableKey: string): Promise<ChangeReads | undefined> {
    const table = storable(tableKey) ? await firstRow(db, tableOf, tenantId, tableKey) : undefined;
    if (!table) return undefined;
    return {
      state: async () => (await firstRow(db, tableState, tenantId, table.pk))!,
      rows: async ({ records }, n) => changeRows(await rowsOf(db, tableRecords, tenantId, table.pk, ...records, n)),
    };
  },
};
