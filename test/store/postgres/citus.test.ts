import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { statementTexts } from '../../../src/store/postgres/connection.js';
import '../../../src/store/postgres/postgresEngine.js';
import { tempDatabase, withOtherStore } from '../../support/harness.js';
import { ON_CITUS } from '../../support/testDatabases.js';

/**
 * On a Citus cluster (withCitus.ts): the migrations distribute every table of tenant data by
 * tenant in one co-location group and copy the directory to every node, a table added later
 * too; and every statement the PostgreSQL engine prepares is planned, and each that reads or
 * writes tenant data goes to one node: a router plan, one task, nothing pulled to the
 * coordinator first and no step before it. The catalog rules of distribution.test.ts, held to
 * Citus' own planner. Each statement is prepared as written and explained with a value of each
 * of its parameters' types (every number 1: whichever parameter is the tenant, it is one tenant).
 */
const skip = ON_CITUS ? false : 'needs a Citus cluster (make test-citus)';

/** What is not planned by Citus (statements of Citus' own catalog, DDL, the migrations' lock) or holds no tenant data. */
const NOT_EXPLAINED = /^\s*(CREATE |SELECT (create_reference_table|create_distributed_table|truncate_local_data_after_distributing_table|set_config)\()/;

/**
 * A statement between two tenants: a copy of the tenant `$1`'s rows into the tenant `$2`
 * (../../../src/store/postgres/tenantCopy.ts), which Citus runs as a repartitioned INSERT … SELECT
 * between their nodes and cannot explain without the parameters' values. Run for real by the
 * copies and resets of sandboxes in the Citus sample (adminSandboxCopy, adminReset).
 */
const BETWEEN_TENANTS = /^\s*INSERT INTO \w+ \([^)]*\)\s*SELECT \$2, [\s\S]* WHERE tenant_id = \$1\s*$/;

/** A statement of no one tenant: it names no tenant among its parameters. */
const OF_ALL_TENANTS = /^(?![\s\S]*tenant_id = \$\d)/;

/** A literal of each type the engine's parameters have. */
function literal(type: string): string {
  if (type.endsWith('[]')) return `'{}'::${type}`;
  if (['integer', 'bigint', 'smallint', 'numeric'].includes(type)) return `1::${type}`;
  if (type === 'boolean') return 'false';
  if (type === 'bytea') return `'\\x00'::bytea`;
  return `'x'::${type}`;
}

/** The workers' ports (withCitus.ts). */
const WORKER_PORTS = new Set((process.env.COMPDATA_TEST_PG_WORKERS ?? '').split(',').filter(Boolean).map((url) => new URL(url).port));

/**
 * What a Citus plan shows of its execution: each `Task Count`, the workers its tasks run on, and
 * whether it has steps before its last (a subplan whose result the next step reads, or rows
 * gathered on the coordinator before they are sent to the shard): each step still goes to the
 * tenant's node, but it is a round trip more.
 */
function tasksOf(plan: string): { counts: number[]; workers: Set<string>; steps: boolean } {
  const counts = [...plan.matchAll(/Task Count: (\d+)/g)].map((match) => Number(match[1]));
  const workers = new Set([...plan.matchAll(/Node: host=\S+ port=(\d+)/g)].map((match) => match[1]!).filter((port) => WORKER_PORTS.has(port)));
  return { counts, workers, steps: /Distributed Subplan|pull to coordinator/.test(plan) };
}

test('every table of tenant data is distributed by tenant in one group, the directory copied to every node, a table added later too', { skip }, async (t) => {
  const { database, store, sql } = await tempDatabase(t, 'postgres');
  const tables = async () =>
    (await sql.rows(
      `SELECT c.relname::text, t.citus_table_type, t.distribution_column, t.colocation_id FROM pg_class c LEFT JOIN citus_tables t ON t.table_name = c.oid
       WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' ORDER BY 1`,
    )) as [string, string | null, string | null, number | null][];
  const before = await tables();
  const reference = before.filter(([, type]) => type === 'reference').map(([name]) => name);
  assert.deepEqual(reference, ['api_keys', 'leases', 'sandbox_requests', 'schema_version', 'tenants']);
  const byTenant = before.filter(([, type, column]) => type === 'distributed' && column === 'tenant_id');
  assert.deepEqual(byTenant.length, before.length - reference.length, `every other table by tenant_id: ${JSON.stringify(before)}`);
  assert.equal(new Set(byTenant.map(([, , , group]) => group)).size, 1, 'one co-location group');
  assert.ok(byTenant.some(([name]) => name === 'tenant_state') && byTenant.some(([name]) => name === 'reporting_records'));
  assert.equal(
    await store.distribution(),
    `Citus coordinator with 2 workers: ${byTenant.length} tables distributed by tenant_id in one co-location group (4 shards each); 5 reference tables (api_keys, leases, sandbox_requests, schema_version, tenants)`,
  );

  // A table a later migration adds, with a foreign key to one distributed already: distributed when a store next opens the database.
  await sql.exec(`CREATE TABLE later_notes (tenant_id integer NOT NULL, user_pk bigint NOT NULL, note text, PRIMARY KEY (tenant_id, user_pk),
                    FOREIGN KEY (tenant_id, user_pk) REFERENCES users (tenant_id, pk) ON DELETE CASCADE)`);
  await withOtherStore(database, async (other) => assert.match((await other.distribution())!, new RegExp(`^Citus coordinator with 2 workers: ${byTenant.length + 1} tables distributed by tenant_id in one co-location group`)));
  const later = (await tables()).find(([name]) => name === 'later_notes')!;
  assert.deepEqual(later.slice(1), ['distributed', 'tenant_id', byTenant[0]![3]]);
});

test('every statement of the engine is routed to one node on Citus', { skip }, async (t) => {
  const { database, store, beforeRemoval } = await tempDatabase(t, 'postgres');
  await store.health();
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  beforeRemoval(() => client.end());
  const all = [...statementTexts()].filter((text) => !NOT_EXPLAINED.test(text));
  const betweenTenants = all.filter((text) => BETWEEN_TENANTS.test(text));
  const texts = all.filter((text) => !BETWEEN_TENANTS.test(text));
  assert.ok(texts.length > 60, `${texts.length} statements found`);
  const spread: string[] = [];
  const refused: string[] = [];
  const inSteps: string[] = [];
  const ofAllTenants: string[] = [];
  let routed = 0;
  for (const [i, text] of texts.entries()) {
    try {
      await client.query(`PREPARE plan_${i} AS ${text}`);
      const types = (await client.query<{ types: string[] }>('SELECT parameter_types::text[] AS types FROM pg_prepared_statements WHERE name = $1', [`plan_${i}`])).rows[0]!.types;
      const execute = `EXECUTE plan_${i}${types.length > 0 ? `(${types.map(literal).join(', ')})` : ''}`;
      const plan = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${execute}`)).rows.map((row) => row['QUERY PLAN']).join('\n');
      const { counts, workers, steps } = tasksOf(plan);
      const overShards = counts.some((count) => count !== 1) || workers.size > 1;
      // A statement of no one tenant (the scan of every tenant's unfinished imports) may go to every node.
      if (overShards && !OF_ALL_TENANTS.test(text)) spread.push(`${text}\n  Task Count: ${counts.join(', ')}`);
      else if (overShards) ofAllTenants.push(text.split('\n')[0]!);
      else if (steps) inSteps.push(`${text}\n${plan}`);
      else if (counts.length > 0) routed += 1;
    } catch (error) {
      refused.push(`${text}\n  ${(error as Error).message}`);
    }
  }
  assert.deepEqual(refused, [], 'statements Citus cannot plan');
  assert.deepEqual(spread, [], 'statements planned over several shards');
  assert.deepEqual(inSteps, [], 'statements run in steps (each on the tenant\'s node, but a round trip more)');
  assert.ok(routed > 50, `${routed} statements routed`);
  t.diagnostic(`${routed} statements in one task`);
  t.diagnostic(`${ofAllTenants.length} of every tenant, on every node: ${ofAllTenants.join(' | ')}`);
  t.diagnostic(`${betweenTenants.length} copies between two tenants, not explained: ${betweenTenants.map((text) => text.trim().split(/\s+/)[2]).join(', ')}`);
});
