import assert from 'node:assert/strict';
import { test } from 'node:test';
import { statementTexts } from '../../../src/store/postgres/connection.js';
import '../../../src/store/postgres/postgresEngine.js';
import { tempDatabase } from '../../support/harness.js';

/**
 * Ready to distribute by tenant (issue 11; src/store/postgres/migrations.ts): on Citus, each
 * table of a tenant's data is distributed by `tenant_id`, which works only when every primary
 * and unique key starts with it and every foreign key includes it; and a statement reaches one
 * shard only when it filters by it. The directory (tenants, keys, the schema version) and the
 * leases of the servers' background work are replicated instead.
 */
const DIRECTORY = new Set(['tenants', 'api_keys', 'schema_version', 'leases', 'sandbox_requests']);

interface Constraint {
  table: string;
  name: string;
  kind: string;
  columns: string[];
  referenced: string[] | null;
}

test('every table of tenant data has tenant_id first in each primary and unique key and each index, and in each foreign key', async (t) => {
  const { store, sql } = await tempDatabase(t, 'postgres');
  await store.health(); // migrated
  const tables = (await sql.rows(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`)).map(([name]) => name as string);
  const dataTables = tables.filter((name) => !DIRECTORY.has(name));
  assert.ok(dataTables.length >= 10, `tables found: ${tables.join(', ')}`);
  const columnsOf = async (table: string) =>
    (await sql.rows('SELECT column_name FROM information_schema.columns WHERE table_schema = ? AND table_name = ?', 'public', table)).map(([c]) => c);
  for (const table of dataTables) assert.ok((await columnsOf(table)).includes('tenant_id'), `${table} has no tenant_id`);

  const constraints: Constraint[] = (
    await sql.rows(
      `SELECT c.conrelid::regclass::text, c.conname, c.contype,
              (SELECT array_agg(a.attname::text ORDER BY k.n) FROM unnest(c.conkey) WITH ORDINALITY AS k (attnum, n)
                 JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum),
              (SELECT array_agg(a.attname::text ORDER BY k.n) FROM unnest(c.confkey) WITH ORDINALITY AS k (attnum, n)
                 JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum)
       FROM pg_constraint c JOIN pg_namespace s ON s.oid = c.connamespace
       WHERE s.nspname = 'public' AND c.contype IN ('p', 'u', 'f')`,
    )
  ).map(([table, name, kind, columns, referenced]) => ({ table, name, kind, columns, referenced }) as Constraint);
  const broken: string[] = [];
  for (const { table, name, kind, columns, referenced } of constraints) {
    if (DIRECTORY.has(table)) continue;
    if ((kind === 'p' || kind === 'u') && columns[0] !== 'tenant_id') broken.push(`${table}.${name}: (${columns.join(', ')}) does not start with tenant_id`);
    if (kind === 'f') {
      const at = columns.indexOf('tenant_id');
      const toTenant = at !== -1 && (referenced![at] === 'tenant_id' || (referenced!.length === 1 && referenced![0] === 'id'));
      if (!toTenant) broken.push(`${table}.${name}: (${columns.join(', ')}) -> (${referenced!.join(', ')}) does not carry tenant_id`);
    }
  }
  // Every index, unique or not: on Citus an index of a distributed table lives in each shard, and one led by tenant_id serves the tenant's statements there.
  const indexes = await sql.rows(
    `SELECT t.relname::text, i.relname::text, a.attname::text
     FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
     JOIN pg_namespace s ON s.oid = t.relnamespace
     LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = x.indkey[0]
     WHERE s.nspname = 'public'`,
  );
  for (const [table, index, first] of indexes as [string, string, string | null][]) {
    if (!DIRECTORY.has(table) && first !== 'tenant_id') broken.push(`${table}.${index}: an index not led by tenant_id`);
  }
  assert.ok(indexes.some(([, index]) => index === 'reporting_records_by_plan'), 'indexes were read');
  // Citus moves shards and copies reference tables to a new worker by logical replication, which
  // needs each table's rows identified: a primary key, or the whole row (REPLICA IDENTITY FULL).
  const unidentified = await sql.rows(
    `SELECT c.relname::text FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND c.relreplident <> 'f'
       AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'p')`,
  );
  for (const [table] of unidentified) broken.push(`${String(table)}: no primary key or replica identity, so Citus cannot move it`);
  assert.deepEqual(broken, []);
  assert.ok(constraints.some((c) => c.kind === 'f' && c.table === 'group_attributions'), 'foreign keys were read');
});

test('every statement of the engine on tenant data filters by tenant_id', () => {
  // Statements on the directory, leases, locks, settings and log positions (read replicas): no tenant data.
  const directoryOnly =
    /^\s*(CREATE TABLE IF NOT EXISTS schema_version|SELECT version FROM schema_version|UPDATE schema_version|INSERT INTO schema_version|SELECT pg_advisory_xact_lock|SELECT set_config|INSERT INTO api_keys|UPDATE api_keys|INSERT INTO tenants|INSERT INTO leases|DELETE FROM leases|DELETE FROM sandbox_requests|SELECT fingerprint, answer, created_at AS at FROM sandbox_requests|SELECT id, name(, created_at AS "createdAt")? FROM tenants|SELECT pg_wal_lsn_diff)/;
  // Citus' catalog and functions, when the migrations distribute the tables (citus.ts): no tenant data.
  const citusCatalog = /^\s*SELECT (EXISTS \(SELECT 1 FROM pg_extension|p\.logicalrelid|create_reference_table|create_distributed_table|truncate_local_data_after_distributing_table|c\.relname|count\(\*\)::integer AS count FROM pg_dist_node)/;
  // Read across tenants on purpose, on every shard on Citus: whether any sandbox still names a
  // copy's origin (once per deletion of a copy: docs/administration.md#reset), and how many
  // sandboxes there are (once per create, for its cap: docs/administration.md#limits), and the
  // outbox's pending calls (once per scrape of /metrics: docs/administration.md#the-log-of-calls).
  const acrossTenants =
    /^(SELECT EXISTS \(SELECT 1 FROM sandbox_recipes WHERE origin_id = \$1\)|SELECT count\(\*\)::integer AS count FROM sandbox_recipes$|SELECT count\(\*\)::float8 AS pending, min\(coalesce\(resent_at, created_at\)\) AS "oldestSince" FROM webhook_calls WHERE state = 'pending'$)/;
  const texts = [...statementTexts()];
  assert.ok(texts.length > 40, `${texts.length} statements found`);
  const unfiltered = texts.filter((text) => !directoryOnly.test(text) && !citusCatalog.test(text) && !acrossTenants.test(text) && !/\btenant_id\b|\bt\.id = \$1|WHERE id = \$\d/.test(text));
  assert.deepEqual(unfiltered, []);
});
