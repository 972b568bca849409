import type { TenantRow, TenantSizes } from '../engine/readSteps.js';
import type { KeptCreate } from '../vocabulary/adminShapes.js';
import type { Db } from './db.js';

/** The tenants listed, how much each holds (the administration API's listing), and sandbox creates kept, on one connection. */
export function tenantDirectoryReads(db: Db) {
  const after = db.prepare<{ after: string | null; limit: number }, TenantRow>(
    // Not the hidden origins of copies (../admin/sandboxCopies.ts), whose names start with U+0001.
    `SELECT id, name, created_at AS createdAt FROM tenants WHERE (@after IS NULL OR name > @after) AND substr(name, 1, 1) <> char(1) ORDER BY name LIMIT @limit`,
  );
  // Records are counted from their dense positions (migrations.ts): one index seek each.
  const sizes = db.prepare<{ id: number }, TenantSizes>(
    `SELECT (SELECT count(*) FROM users WHERE tenant_id = @id) AS users,
            (SELECT ifnull(max(pos) + 1, 0) FROM reporting_records WHERE tenant_id = @id) AS reportingRecords,
            (SELECT ifnull(sum((SELECT ifnull(max(r.pos) + 1, 0) FROM table_records r WHERE r.table_pk = t.pk)), 0)
             FROM data_tables t WHERE t.tenant_id = @id) AS tableRecords,
            (SELECT expires_at FROM sandbox_recipes WHERE tenant_id = @id) AS expiresAt`,
  );
  const expired = db.prepare<[string, number], string>(
    `SELECT t.name FROM sandbox_recipes r JOIN tenants t ON t.id = r.tenant_id
     WHERE r.expires_at IS NOT NULL AND r.expires_at <= ? ORDER BY r.expires_at, t.name LIMIT ?`,
  ).pluck();
  const kept = db.prepare<[string, number], Omit<KeptCreate, 'lookup'>>(
    'SELECT fingerprint, answer, created_at AS at FROM sandbox_requests WHERE lookup = ? AND created_at >= ?',
  );
  return {
    tenantsAfter: (name: string | null, limit: number): TenantRow[] => after.all({ after: name, limit }),
    keptCreate: (lookup: string, since: number): Omit<KeptCreate, 'lookup'> | undefined => kept.get(lookup, since),
    tenantSizes: (tenantId: number): TenantSizes => sizes.get({ id: tenantId })!,
    expiredSandboxes: (now: string, limit: number): string[] => expired.all(now, limit),
  };
}

/**
 * Deletes a tenant whole, inside the caller's write transaction: records first (they reference
 * users without a cascade), then every other table of its data by `tenant_id` (the tables keyed
 * by a parent's key go with it: a data table's records, an import's tables and lines, users'
 * attributions and dimension values, a dimension's groups), then its keys and itself. The
 * largest id of a deleted tenant is kept, so that no new tenant gets the id again (migration 18).
 */
export function tenantDeletion(db: Db): (tenantId: number) => void {
  const statements = [
    'reporting_records',
    'reporting_records_v2',
    'statements',
    'removed_records',
    'data_tables',
    'users',
    'dimensions',
    'metrics',
    'stamp_times',
    'idempotency_keys',
    'webhook_attempts',
    'webhook_calls',
    'webhook_endpoints',
    'sandbox_recipes',
    'sandbox_requests',
    'imports',
    'api_keys',
  ]
    .map((table) => `DELETE FROM ${table} WHERE tenant_id = ?`)
    .concat('DELETE FROM tenants WHERE id = ?', 'UPDATE last_deleted_tenant SET id = max(id, ?)')
    .map((sql) => db.prepare<[number]>(sql));
  return (tenantId) => {
    for (const statement of statements) statement.run(tenantId);
  };
}
