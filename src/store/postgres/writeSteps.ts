import { newDataVersion, bumpDataVersion } from './dataVersion.js';
import type { WriteSteps } from '../engine/transactionSteps.js';
import type { Tenant } from '../vocabulary/tenancy.js';
import { changeStamps } from './changeStamps.js';
import { firstRow, run, statement, type Queryable } from './connection.js';
import { keyInsert } from './keys.js';
import { keepingStatistics } from './loadStatistics.js';
import { loadSteps } from './loadSteps.js';
import { leaseSteps } from './leases.js';
import { deliverySteps } from './deliverySteps.js';
import { sandboxRecipeSteps } from './sandboxRecipes.js';
import { tenantCopySteps } from './tenantCopy.js';
import { sandboxRequestSteps } from './sandboxRequests.js';
import { tenantDeletion } from './tenantDirectory.js';
import { LOCK_NAMESPACE } from './migrations.js';
import { statusChangeSteps, webhookSteps } from './webhookSteps.js';

const find = statement<[string], Tenant>('SELECT id, name FROM tenants WHERE name = $1');
const insert = statement<[string, string]>('INSERT INTO tenants (name, created_at) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING');
const hasData = statement<[number], { found: boolean }>(
  `SELECT EXISTS (SELECT 1 FROM users WHERE tenant_id = $1)
       OR EXISTS (SELECT 1 FROM data_tables WHERE tenant_id = $1) AS found`,
);
const lockTenant = statement<[number, number]>('SELECT pg_advisory_xact_lock($1, $2)');
const insertState = statement<[number, number]>('INSERT INTO tenant_state (tenant_id, data_version) VALUES ($1, $2) ON CONFLICT DO NOTHING');
// Records go first: they reference users without a cascade, and a table's records have no
// foreign key to delete them with it (migration 14). Where each stood is kept for v2's walks
// (see ../sqlite/migrations.ts, 8).
const deletions = [
  `INSERT INTO removed_records (tenant_id, structure, id, pos) SELECT tenant_id, '', id, pos FROM reporting_records WHERE tenant_id = $1
   ON CONFLICT (tenant_id, structure, id) DO UPDATE SET pos = excluded.pos`,
  `INSERT INTO removed_records (tenant_id, structure, id, pos)
   SELECT t.tenant_id, t.key, r.id, r.pos FROM table_records r JOIN data_tables t ON t.tenant_id = r.tenant_id AND t.pk = r.table_pk
   WHERE r.tenant_id = $1
   ON CONFLICT (tenant_id, structure, id) DO UPDATE SET pos = excluded.pos`,
  'DELETE FROM reporting_records WHERE tenant_id = $1',
  'DELETE FROM statements WHERE tenant_id = $1',
  'DELETE FROM table_records WHERE tenant_id = $1',
  'DELETE FROM data_tables WHERE tenant_id = $1',
  'DELETE FROM users WHERE tenant_id = $1',
  'DELETE FROM dimensions WHERE tenant_id = $1',
  'DELETE FROM metrics WHERE tenant_id = $1',
  `UPDATE tenant_state SET empty_fragment = '}' WHERE tenant_id = $1`,
].map((sql) => statement<[number]>(sql));

/**
 * Waits until no other transaction writes the tenant's data, then keeps them waiting until this
 * transaction ends: writes of one tenant are serialised, those of different tenants run side by side.
 */
const lockForWriting = async (db: Queryable, tenantId: number): Promise<void> => void (await run(db, lockTenant, LOCK_NAMESPACE, tenantId));

/**
 * The start of a tenant's write transaction in one round trip: BEGIN, a `lock_timeout` of
 * `timeoutMs` for the transaction, then the tenant's write lock ({@link lockForWriting}). One
 * query of several statements without parameters (the two values are integers written into it),
 * which PgBouncer's transaction pooling passes as it is.
 */
export function beginLocked(tenantId: number, timeoutMs: number): string {
  if (!Number.isSafeInteger(tenantId)) throw new Error(`a tenant id is an integer, not ${tenantId}`);
  const timeout = `${Math.max(1, Math.trunc(timeoutMs))}ms`;
  return `BEGIN; SELECT set_config('lock_timeout', '${timeout}', true); SELECT pg_advisory_xact_lock(${LOCK_NAMESPACE}, ${tenantId})`;
}

/** The steps of a write transaction on PostgreSQL (a load, a new key), on its connection. */
export function writeSteps(db: Queryable): WriteSteps {
  return {
    async ensureTenant(name) {
      await run(db, insert, name, new Date().toISOString());
      const tenant = (await firstRow(db, find, name))!;
      await run(db, insertState, tenant.id, newDataVersion());
      return tenant;
    },
    findTenant: (name) => firstRow(db, find, name),
    deleteTenant: tenantDeletion(db),
    lockTenant: (tenantId) => lockForWriting(db, tenantId),
    hasData: async (tenantId) => (await firstRow(db, hasData, tenantId))!.found,
    async deleteData(tenantId) {
      for (const deletion of deletions) await run(db, deletion, tenantId);
    },
    dataChanged: (tenantId) => bumpDataVersion(db, tenantId),
    nextStamp: async (tenantId, replace) => (await changeStamps(db).next(tenantId, replace)).stamp,
    insertKey: keyInsert(db),
    loadSteps: (tenantId) => keepingStatistics(db, loadSteps(db, tenantId)),
    ...sandboxRecipeSteps(db),
    ...tenantCopySteps(db),
    ...leaseSteps(db),
    statusChangeSteps: (tenantId) => statusChangeSteps(db, tenantId),
    webhookSteps: (tenantId) => webhookSteps(db, tenantId),
    deliverySteps: () => deliverySteps(db),
    ...sandboxRequestSteps(db),
  };
}
