import type { Tenant } from '../store.js';
import type { Db } from './db.js';

/** The statements over tenants, prepared once per connection. */
export function tenantStatements(db: Db) {
  const find = db.prepare<[string], Tenant>('SELECT id, name FROM tenants WHERE name = ?');
  const insert = db.prepare<[string, string]>(
    'INSERT INTO tenants (name, created_at, data_version) VALUES (?, ?, random()) ON CONFLICT (name) DO NOTHING',
  );
  const hasData = db
    .prepare<{ id: number }, number>(
      `SELECT EXISTS (SELECT 1 FROM users WHERE tenant_id = @id)
           OR EXISTS (SELECT 1 FROM data_tables WHERE tenant_id = @id)`,
    )
    .pluck();
  // Records go first: they reference users without a cascade.
  const deletions = [
    'DELETE FROM reporting_records WHERE tenant_id = ?',
    'DELETE FROM data_tables WHERE tenant_id = ?',
    'DELETE FROM users WHERE tenant_id = ?',
    'DELETE FROM dimensions WHERE tenant_id = ?',
    'DELETE FROM metrics WHERE tenant_id = ?',
    `UPDATE tenants SET empty_fragment = '}' WHERE id = ?`,
  ].map((sql) => db.prepare<[number]>(sql));

  return {
    find: (name: string): Tenant | undefined => find.get(name),
    /** The tenant named `name`, created when missing. */
    ensure(name: string): Tenant {
      insert.run(name, new Date().toISOString());
      return find.get(name)!;
    },
    /** Whether the tenant already holds users or data tables (keys alone do not count). */
    hasData: (tenant: Tenant): boolean => hasData.get({ id: tenant.id }) === 1,
    /**
     * Deletes the tenant's data (metrics, dimensions, users and their attributions, reporting
     * records, data tables), keeping the tenant and its API keys: what `import --replace` starts
     * with, inside the transaction that writes the new data (readers see the old or the new).
     */
    deleteData(tenant: Tenant): void {
      for (const statement of deletions) statement.run(tenant.id);
    },
  };
}
