import type { DatasetSteps, ExportedStatement, ExportedUser } from '../engine/snapshotSteps.js';
import type { TableRow } from '../engine/readSteps.js';
import type { Db } from './db.js';

/** What `compdata export` reads besides the paged listings (../admin/datasetReading.ts), prepared once per connection. */
export function datasetSteps(db: Db): DatasetSteps {
  const metricKeys = db.prepare<[number], string>('SELECT key FROM metrics WHERE tenant_id = ? ORDER BY position').pluck();
  const dimensionKeys = db.prepare<[number], string>('SELECT key FROM dimensions WHERE tenant_id = ? ORDER BY position').pluck();
  // NOCASE: the collation of the unique index on e-mails, so no two users tie.
  const usersAfter = db.prepare<[number, string, number], ExportedUser>(
    `SELECT email AS key, json, attributes, archived_after AS archivedAfter FROM users WHERE tenant_id = ? AND email > ? COLLATE NOCASE
     ORDER BY email COLLATE NOCASE LIMIT ?`,
  );
  const statementsAfter = db.prepare<{ tenant: number; after: string; month: number; n: number }, ExportedStatement>(
    `SELECT u.email AS key, u.email, s.month, s.status FROM statements s JOIN users u ON u.pk = s.user_pk
     WHERE s.tenant_id = @tenant AND (u.email > @after COLLATE NOCASE OR (u.email = @after COLLATE NOCASE AND s.month > @month))
     ORDER BY u.email COLLATE NOCASE, s.month LIMIT @n`,
  );
  const tables = db.prepare<[number], TableRow>('SELECT key, name, fields AS fieldsJson FROM data_tables WHERE tenant_id = ? ORDER BY key');
  const emptyFragment = db.prepare<[number], string>('SELECT empty_fragment FROM tenants WHERE id = ?').pluck();
  return {
    metricKeys: (tenantId) => metricKeys.all(tenantId),
    dimensionKeys: (tenantId) => dimensionKeys.all(tenantId),
    usersAfter: (tenantId, after, n) => usersAfter.all(tenantId, after, n),
    statementsAfter: (tenant, after, month, n) => statementsAfter.all({ tenant, after, month, n }),
    tables: (tenantId) => tables.all(tenantId),
    emptyFragment: (tenantId) => emptyFragment.get(tenantId)!,
  };
}
