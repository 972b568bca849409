import type { Db } from './db.js';

export interface Tenant {
  id: number;
  name: string;
}

export function findTenant(db: Db, name: string): Tenant | undefined {
  return db.prepare('SELECT id, name FROM tenants WHERE name = ?').get(name) as Tenant | undefined;
}

/** The tenant named `name`, created when missing. */
export function ensureTenant(db: Db, name: string): Tenant {
  db.prepare('INSERT INTO tenants (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING').run(
    name,
    new Date().toISOString(),
  );
  return findTenant(db, name)!;
}

/** Whether the tenant already holds users or data tables (keys alone do not count). */
export function tenantHasData(db: Db, tenant: Tenant): boolean {
  const found = db
    .prepare(
      `SELECT EXISTS (SELECT 1 FROM users WHERE tenant_id = @id)
           OR EXISTS (SELECT 1 FROM data_tables WHERE tenant_id = @id)`,
    )
    .pluck()
    .get({ id: tenant.id });
  return found === 1;
}

/**
 * Deletes the tenant's data (metrics, dimensions, users and their attributions, reporting
 * records, data tables), keeping the tenant and its API keys: what `import --replace` starts
 * with. Run inside the transaction that writes the new data, so that readers see the old data
 * or the new, never none. Records go first: they reference users without a cascade.
 */
export function deleteTenantData(db: Db, tenant: Tenant): void {
  for (const sql of [
    'DELETE FROM reporting_records WHERE tenant_id = ?',
    'DELETE FROM data_tables WHERE tenant_id = ?',
    'DELETE FROM users WHERE tenant_id = ?',
    'DELETE FROM dimensions WHERE tenant_id = ?',
    'DELETE FROM metrics WHERE tenant_id = ?',
    `UPDATE tenants SET empty_fragment = '}' WHERE id = ?`,
  ]) {
    db.prepare(sql).run(tenant.id);
  }
}
