import type { V2Reads, V2Row } from '../paging/v2Paging.js';
import { firstRow, rowsOf, statement, storable, type Queryable } from './connection.js';

/** A record's time: that of the first dated stamp at or after its own (migration 4). */
const timeOf = (stamp: string) =>
  `CROSS JOIN LATERAL (SELECT t.at FROM stamp_times t WHERE t.tenant_id = $1 AND t.stamp >= ${stamp} ORDER BY t.stamp LIMIT 1) AS t`;

type Row = { json: string; at: number };
/** `$1` the tenant, `$2` the first position, `$3` rows wanted, `$4, $5` the times (excluded) between which records changed. */
type RowParams = [number, number, number, number, number];

const reportingRows = statement<[...RowParams, string], Row>(
  `SELECT r.body || coalesce(d.fragment, $6) AS json, t.at
   FROM reporting_records r
   LEFT JOIN dimension_values d ON d.tenant_id = r.tenant_id AND d.user_pk = r.user_pk AND d.month = r.month
   ${timeOf('greatest(r.stamp, coalesce(d.stamp, 0))')}
   WHERE r.tenant_id = $1 AND r.pos >= $2 AND t.at > $4 AND t.at < $5
   ORDER BY r.pos LIMIT $3`,
);
const tableRows = statement<[...RowParams, number], Row>(
  `SELECT r.body AS json, t.at FROM table_records r ${timeOf('r.stamp')}
   WHERE r.tenant_id = $1 AND r.table_pk = $6 AND r.pos >= $2 AND t.at > $4 AND t.at < $5
   ORDER BY r.pos LIMIT $3`,
);
const tableOf = statement<[number, string], { pk: number }>('SELECT pk FROM data_tables WHERE tenant_id = $1 AND key = $2');
const position = statement<[number, number, string], { pos: number | null }>(
  `SELECT coalesce(
     CASE WHEN $2 = 0 THEN (SELECT pos FROM reporting_records WHERE tenant_id = $1 AND id = $3)
          ELSE (SELECT pos FROM table_records WHERE tenant_id = $1 AND table_pk = $2 AND id = $3) END,
     (SELECT pos FROM removed_records WHERE tenant_id = $1 AND owner = $2 AND id = $3)) AS pos`,
);
const emails = statement<[number, string[]], { id: string; email: string }>('SELECT id, email FROM users WHERE tenant_id = $1 AND id = ANY ($2::text[])');

const v2Rows = (rows: Row[]): V2Row[] => rows.map(({ json, at }) => [json, at]);

/** The reads of the v2 routes (docs/rules.md#v2-reads), over a pool or a transaction's connection. */
export function v2Reads(db: Queryable): V2Reads {
  const tablePk = async (tenantId: number, tableKey: string) => (storable(tableKey) ? (await firstRow(db, tableOf, tenantId, tableKey))?.pk : undefined);
  const positionOf = async (tenantId: number, owner: number, id: string) =>
    storable(id) ? ((await firstRow(db, position, tenantId, owner, id))?.pos ?? undefined) : undefined;
  return {
    reportingPosition: (tenantId, id) => positionOf(tenantId, 0, id),
    async tablePosition(tenantId, tableKey, id) {
      const pk = await tablePk(tenantId, tableKey);
      return pk === undefined ? undefined : positionOf(tenantId, pk, id);
    },
    reportingRows: async (tenantId, emptyFragment, from, n, { after, before }) =>
      v2Rows(await rowsOf(db, reportingRows, tenantId, from, n, after, before, emptyFragment)),
    async tableRows(tenantId, tableKey, from, n, { after, before }) {
      const pk = await tablePk(tenantId, tableKey);
      return pk === undefined ? undefined : v2Rows(await rowsOf(db, tableRows, tenantId, from, n, after, before, pk));
    },
    userEmails: async (tenantId, ids) => (await rowsOf(db, emails, tenantId, ids.filter(storable))).map(({ id, email }) => [id, email]),
  };
}
