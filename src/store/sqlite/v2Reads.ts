import type { V2Reads } from '../paging/v2Paging.js';
import type { Db } from './db.js';

/** The reads of the v2 routes (docs/rules.md#v2-reads) besides the paged ones, prepared once per connection. */
export function v2Reads(db: Db): V2Reads {
  const reportingPosition = db.prepare<[number, string], number>('SELECT pos FROM reporting_records WHERE tenant_id = ? AND id = ?').pluck();
  const tablePosition = db
    .prepare<[number, string, string], number>(
      'SELECT r.pos FROM data_tables t JOIN table_records r ON r.table_pk = t.pk WHERE t.tenant_id = ? AND t.key = ? AND r.id = ?',
    )
    .pluck();
  const emails = db
    .prepare<[string, number], [string, string]>('SELECT u.id, u.email FROM json_each(?) j JOIN users u ON u.tenant_id = ? AND u.id = j.value')
    .raw();
  return {
    reportingPosition: (tenantId, id) => reportingPosition.get(tenantId, id),
    tablePosition: (tenantId, tableKey, id) => tablePosition.get(tenantId, tableKey, id),
    userEmails: (tenantId, ids) => emails.all(JSON.stringify(ids), tenantId),
  };
}
