import type { Tenant } from '../store.js';
import { firstRow, run, statement, type Queryable } from './connection.js';
import { LOCK_NAMESPACE } from './migrations.js';

const find = statement<[string], Tenant>('SELECT id, name FROM tenants WHERE name = $1');
const insert = statement<[string, string]>('INSERT INTO tenants (name, created_at) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING');
const hasData = statement<[number], { found: boolean }>(
  `SELECT EXISTS (SELECT 1 FROM users WHERE tenant_id = $1)
       OR EXISTS (SELECT 1 FROM data_tables WHERE tenant_id = $1) AS found`,
);
const lockTenant = statement<[number, number]>('SELECT pg_advisory_xact_lock($1, $2)');
const bumpDataVersion = statement<[number]>('UPDATE tenants SET data_version = (random() * 9007199254740991)::bigint WHERE id = $1');
// Records go first: they reference users without a cascade.
const deletions = [
  'DELETE FROM reporting_records WHERE tenant_id = $1',
  'DELETE FROM data_tables WHERE tenant_id = $1',
  'DELETE FROM users WHERE tenant_id = $1',
  'DELETE FROM dimensions WHERE tenant_id = $1',
  'DELETE FROM metrics WHERE tenant_id = $1',
  `UPDATE tenants SET empty_fragment = '}' WHERE id = $1`,
].map((sql) => statement<[number]>(sql));

/** The statements over tenants. */
export const tenantStatements = {
  find: (db: Queryable, name: string): Promise<Tenant | undefined> => firstRow(db, find, name),
  /** The tenant named `name`, created when missing. */
  async ensure(db: Queryable, name: string): Promise<Tenant> {
    await run(db, insert, name, new Date().toISOString());
    return (await firstRow(db, find, name))!;
  },
  /**
   * Waits until no other transaction writes the tenant's data, then keeps them waiting until
   * this transaction ends: writes of one tenant are serialised, those of different tenants run
   * side by side.
   */
  lockForWriting: async (db: Queryable, tenantId: number): Promise<void> => void (await run(db, lockTenant, LOCK_NAMESPACE, tenantId)),
  /** The tenant's data changes in this transaction: a new version of it (what the ETag of a paged read is made of). */
  dataChanged: async (db: Queryable, tenantId: number): Promise<void> => void (await run(db, bumpDataVersion, tenantId)),
  /** Whether the tenant already holds users or data tables (keys alone do not count). */
  hasData: async (db: Queryable, tenant: Tenant): Promise<boolean> => (await firstRow(db, hasData, tenant.id))!.found,
  /** Deletes the tenant's data, keeping the tenant and its API keys (`import --replace`). */
  async deleteData(db: Queryable, tenant: Tenant): Promise<void> {
    for (const deletion of deletions) await run(db, deletion, tenant.id);
  },
};
