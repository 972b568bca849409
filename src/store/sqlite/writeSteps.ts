import type { WriteSteps } from '../engine/transactionSteps.js';
import type { Tenant } from '../vocabulary/tenancy.js';
import { changeStamps } from './changeStamps.js';
import { deliveryStepsOn } from './deliverySteps.js';
import type { Db } from './db.js';
import { keyInsert } from './keys.js';
import { loadSteps } from './loadSteps.js';
import { leaseSteps } from './leases.js';
import { sandboxRecipeSteps } from './sandboxRecipes.js';
import { tenantCopySteps } from './tenantCopy.js';
import { sandboxRequestSteps } from './sandboxRequests.js';
import { tenantDeletion } from './tenantDirectory.js';
import { webhookStepsOn } from './webhookSteps.js';

/**
 * The steps of a write transaction on SQLite (a load, a new key), prepared once per connection.
 * The transaction holds SQLite's one write lock, so a tenant needs no lock of its own.
 */
export function writeSteps(db: Db): WriteSteps {
  const find = db.prepare<[string], Tenant>('SELECT id, name FROM tenants WHERE name = ?');
  // A new tenant's id is past every id in use and every deleted tenant's: never one given before (migration 18).
  const insert = db.prepare<[string, string]>(
    `INSERT INTO tenants (id, name, created_at, data_version)
     VALUES (max((SELECT id FROM last_deleted_tenant), ifnull((SELECT max(id) FROM tenants), 0)) + 1, ?, ?, random())
     ON CONFLICT (name) DO NOTHING`,
  );
  const hasData = db
    .prepare<{ id: number }, number>(
      `SELECT EXISTS (SELECT 1 FROM users WHERE tenant_id = @id)
           OR EXISTS (SELECT 1 FROM data_tables WHERE tenant_id = @id)`,
    )
    .pluck();
  // Records go first: they reference users without a cascade. Where each stood is kept for
  // v2's walks (migration 8).
  const deletions = [
    `INSERT INTO removed_records (tenant_id, structure, id, pos) SELECT tenant_id, '', id, pos FROM reporting_records WHERE tenant_id = ?
     ON CONFLICT DO UPDATE SET pos = excluded.pos`,
    `INSERT INTO removed_records (tenant_id, structure, id, pos)
     SELECT t.tenant_id, t.key, r.id, r.pos FROM table_records r JOIN data_tables t ON t.pk = r.table_pk WHERE t.tenant_id = ?
     ON CONFLICT DO UPDATE SET pos = excluded.pos`,
    'DELETE FROM reporting_records WHERE tenant_id = ?',
    'DELETE FROM reporting_records_v2 WHERE tenant_id = ?',
    'DELETE FROM statements WHERE tenant_id = ?',
    'DELETE FROM data_tables WHERE tenant_id = ?',
    'DELETE FROM users WHERE tenant_id = ?',
    'DELETE FROM dimensions WHERE tenant_id = ?',
    'DELETE FROM metrics WHERE tenant_id = ?',
    `UPDATE tenants SET empty_fragment = '}' WHERE id = ?`,
  ].map((sql) => db.prepare<[number]>(sql));
  // The version of the tenant's data (migration 4): a new random value in each transaction that writes it.
  const bumpDataVersion = db.prepare<[number]>('UPDATE tenants SET data_version = random() WHERE id = ?');
  const stamps = changeStamps(db);
  const deleteTenant = tenantDeletion(db);

  return {
    ensureTenant(name) {
      insert.run(name, new Date().toISOString());
      return find.get(name)!;
    },
    findTenant: (name) => find.get(name),
    deleteTenant,
    lockTenant: () => {},
    hasData: (tenantId) => hasData.get({ id: tenantId }) === 1,
    deleteData(tenantId) {
      for (const statement of deletions) statement.run(tenantId);
    },
    dataChanged: (tenantId) => void bumpDataVersion.run(tenantId),
    nextStamp: (tenantId, replace) => stamps.next(tenantId, replace),
    insertKey: keyInsert(db),
    loadSteps: (tenantId) => loadSteps(db, tenantId),
    ...sandboxRecipeSteps(db),
    ...tenantCopySteps(db),
    ...leaseSteps(db),
    ...webhookStepsOn(db),
    ...deliveryStepsOn(db),
    ...sandboxRequestSteps(db),
  };
}
