import type { V2Reads } from '../paging/v2Paging.js';
import { firstRow, rowsOf, statement, storable, type Queryable } from './connection.js';

const reportingPosition = statement<[number, string], { pos: number }>('SELECT pos FROM reporting_records WHERE tenant_id = $1 AND id = $2');
const tablePosition = statement<[number, string, string], { pos: number }>(
  `SELECT r.pos FROM data_tables t JOIN table_records r ON r.tenant_id = t.tenant_id AND r.table_pk = t.pk
   WHERE t.tenant_id = $1 AND t.key = $2 AND r.id = $3`,
);
const emails = statement<[number, string[]], { id: string; email: string }>('SELECT id, email FROM users WHERE tenant_id = $1 AND id = ANY ($2::text[])');

/** The reads of the v2 routes (docs/rules.md#v2-reads) besides the paged ones, over a pool or a transaction's connection. */
export function v2Reads(db: Queryable): V2Reads {
  return {
    reportingPosition: async (tenantId, id) => (storable(id) ? (await firstRow(db, reportingPosition, tenantId, id))?.pos : undefined),
    tablePosition: async (tenantId, tableKey, id) =>
      storable(id) && storable(tableKey) ? (await firstRow(db, tablePosition, tenantId, tableKey, id))?.pos : undefined,
    userEmails: async (tenantId, ids) => (await rowsOf(db, emails, tenantId, ids.filter(storable))).map(({ id, email }) => [id, email]),
  };
}
