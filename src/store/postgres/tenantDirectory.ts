import type { TenantRow, TenantSizes } from '../engine/readSteps.js';
import type { KeptCreate } from '../vocabulary/adminShapes.js';
import { firstRow, rowsOf, run, statement, type Queryable } from './connection.js';

// Not the hidden origins of copies (../admin/sandboxCopies.ts), whose names start with U+0001.
const after = statement<[string | null, number], TenantRow>(
  `SELECT id, name, created_at AS "createdAt" FROM tenants WHERE ($1::text IS NULL OR name > $1) AND left(name, 1) <> chr(1) ORDER BY name LIMIT $2`,
);
/**
 * How much a tenant holds, in one statement that names the tenant in every subquery: on Citus it
 * goes to the tenant's node alone. Records are counted from their dense positions (one index seek each).
 */
const sizes = statement<[number], TenantSizes>(
  `SELECT (SELECT count(*) FROM users WHERE tenant_id = $1)::float8 AS users,
          (SELECT coalesce(max(pos) + 1, 0) FROM reporting_records WHERE tenant_id = $1)::float8 AS "reportingRecords",
          (SELECT coalesce(sum((SELECT coalesce(max(r.pos) + 1, 0) FROM table_records r WHERE r.tenant_id = $1 AND r.table_pk = t.pk)), 0)
           FROM data_tables t WHERE t.tenant_id = $1)::float8 AS "tableRecords",
          (SELECT expires_at FROM sandbox_recipes WHERE tenant_id = $1) AS "expiresAt"`,
);
/** The sandboxes expired: on Citus, over every shard of `sandbox_recipes` (a row per sandbox), joined with the directory. */
const expired = statement<[string, number], { name: string }>(
  `SELECT t.name FROM sandbox_recipes r JOIN tenants t ON t.id = r.tenant_id
   WHERE r.expires_at IS NOT NULL AND r.expires_at <= $1 ORDER BY r.expires_at, t.name LIMIT $2`,
);

const kept = statement<[string, number], { fingerprint: string; answer: Buffer; at: string }>(
  'SELECT fingerprint, answer, created_at AS at FROM sandbox_requests WHERE lookup = $1 AND created_at >= $2',
);

/** The tenants listed, how much each holds (the administration API's listing), and sandbox creates kept. */
export const tenantDirectoryReads = (db: Queryable) => ({
  tenantsAfter: (name: string | null, limit: number): Promise<TenantRow[]> => rowsOf(db, after, name, limit),
  tenantSizes: async (tenantId: number): Promise<TenantSizes> => (await firstRow(db, sizes, tenantId))!,
  expiredSandboxes: async (now: string, limit: number): Promise<string[]> => (await rowsOf(db, expired, now, limit)).map(({ name }) => name),
  async keptCreate(lookup: string, since: number): Promise<Omit<KeptCreate, 'lookup'> | undefined> {
    const row = await firstRow(db, kept, lookup, since);
    return row && { fingerprint: row.fingerprint, answer: row.answer, at: Number(row.at) };
  },
});

/**
 * A tenant deleted whole, inside the caller's write transaction: every table of its data by
 * `tenant_id`, children before the rows they reference, so that each statement names the tenant
 * and goes to its node alone on Citus (no cascade from the directory fans out to every shard);
 * then the directory's rows, its keys and itself.
 */
const deletions = [
  'import_lines',
  'import_tables',
  'imports',
  'idempotency_keys',
  'webhook_attempts',
  'webhook_calls',
  'webhook_endpoints',
  'sandbox_recipes',
  'sandbox_requests',
  'removed_records',
  'stamp_times',
  'statements',
  'table_records',
  'data_tables',
  'dimension_values',
  'reporting_records',
  'group_attributions',
  'manager_attributions',
  'groups',
  'users',
  'dimensions',
  'metrics',
  'tenant_state',
  'api_keys',
]
  .map((table) => `DELETE FROM ${table} WHERE tenant_id = $1`)
  .concat('DELETE FROM tenants WHERE id = $1')
  .map((sql) => statement<[number]>(sql));

export const tenantDeletion =
  (db: Queryable) =>
  async (tenantId: number): Promise<void> => {
    for (const deletion of deletions) await run(db, deletion, tenantId);
  };
