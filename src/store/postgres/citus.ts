import { rowsOf, run, statement, type Queryable } from './connection.js';

/**
 * Citus (https://docs.citusdata.com): on a coordinator whose database has the `citus`
 * extension, every table of tenant data (its primary key starts with `tenant_id`) is distributed by it, all in one co-location
 * group (a tenant's rows of every table live on one node, so each of its statements is routed
 * there), and every other table (the directory: tenants, keys, the schema version) is a
 * reference table, copied to every node. Done in the migrations' transaction, after them, for
 * every table not yet distributed: a new database, one made before Citus was installed, and a
 * table a later migration adds are all distributed the same way. Without the extension
 * (plain PostgreSQL) nothing happens. How many shards a table gets is Citus' setting
 * (`citus.shard_count`, 32 unless the database says otherwise).
 */

const hasCitus = statement<[], { found: boolean }>(`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS found`);

/**
 * The tables of our schema that Citus does not manage yet, whether each holds tenant data (its
 * primary key starts with `tenant_id`; `api_keys` has one but is looked up by key id alone), and
 * the tables each references.
 */
const undistributed = statement<[], { name: string; tenant: boolean; referenced: string[] }>(
  `SELECT c.relname::text AS name,
          EXISTS (SELECT 1 FROM pg_constraint k JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
                  WHERE k.conrelid = c.oid AND k.contype = 'p' AND a.attname = 'tenant_id') AS tenant,
          ARRAY (SELECT f.confrelid::regclass::text FROM pg_constraint f WHERE f.conrelid = c.oid AND f.contype = 'f' AND f.confrelid <> c.oid) AS referenced
   FROM pg_class c
   WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
     AND NOT EXISTS (SELECT 1 FROM pg_dist_partition p WHERE p.logicalrelid = c.oid)
   ORDER BY c.relname`,
);
/** The first table distributed by tenant: every other one joins its co-location group. */
const anchor = statement<[], { name: string }>(
  `SELECT p.logicalrelid::regclass::text AS name FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid
   WHERE c.relnamespace = current_schema()::regnamespace AND p.partmethod = 'h' ORDER BY p.colocationid, c.relname LIMIT 1`,
);
// A reference table made from a table that others reference would turn those into Citus local
// tables (Citus' default), which cannot be distributed afterwards when they have an identity column.
const noLocalTables = statement<[]>(`SELECT set_config('citus.enable_local_reference_table_foreign_keys', 'off', true)`);
// The shards of tables made in this transaction are created over one connection per node.
const sequentially = statement<[]>(`SELECT set_config('citus.multi_shard_modify_mode', 'sequential', true)`);
const makeReference = statement<[string]>('SELECT create_reference_table($1)');
const distribute = statement<[string, string]>(`SELECT create_distributed_table($1, 'tenant_id', colocate_with => $2)`);
/** A table distributed from one that held rows keeps them on the coordinator's disk, unseen: freed. */
const dropLocalCopy = statement<[string]>('SELECT truncate_local_data_after_distributing_table($1)');

/** Each table of our schema as Citus holds it (`distributed`, `reference`, or none: a table of the coordinator alone). */
const tables = statement<[], { name: string; type: string | null; column: string | null; group: number | null; shards: number | null }>(
  `SELECT c.relname::text AS name, t.citus_table_type AS type, t.distribution_column AS column, t.colocation_id AS group, t.shard_count AS shards
   FROM pg_class c LEFT JOIN citus_tables t ON t.table_name = c.oid
   WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' ORDER BY c.relname`,
);
const workers = statement<[], { count: number }>(`SELECT count(*)::integer AS count FROM pg_dist_node WHERE groupid <> 0 AND noderole = 'primary' AND isactive`);

/**
 * How the tables are spread (`compdata check`), in one line: on Citus, how many are distributed
 * by tenant and in how many co-location groups, and the reference tables; any other table by
 * name. `undefined` without Citus.
 */
export async function distributionOf(db: Queryable): Promise<string | undefined> {
  if (!(await onCitus(db))) return undefined;
  const all = await rowsOf(db, tables);
  const distributed = all.filter((table) => table.type === 'distributed');
  const byTenant = distributed.filter((table) => table.column === 'tenant_id');
  const groups = new Set(byTenant.map((table) => table.group));
  const shards = new Set(byTenant.map((table) => table.shards));
  const names = (list: typeof all) => list.map((table) => table.name).join(', ');
  const parts = [
    `${byTenant.length} tables distributed by tenant_id in ${groups.size === 1 ? 'one co-location group' : `${groups.size} co-location groups`}` +
      ` (${[...shards].join(' or ')} shards each)`,
    `${all.filter((table) => table.type === 'reference').length} reference tables (${names(all.filter((table) => table.type === 'reference'))})`,
  ];
  const other = all.filter((table) => !(table.type === 'reference' || byTenant.includes(table)));
  if (other.length > 0) parts.push(`not distributed by tenant: ${other.map((table) => `${table.name} (${table.type ?? 'on the coordinator only'})`).join(', ')}`);
  return `Citus coordinator with ${(await rowsOf(db, workers))[0]!.count} workers: ${parts.join('; ')}`;
}

/** Whether the database has Citus (its coordinator). */
async function onCitus(db: Queryable): Promise<boolean> {
  return (await rowsOf(db, hasCitus))[0]!.found;
}

/**
 * On a Citus coordinator, runs the multi-shard statements of the migrations' transaction over one
 * connection per node from its first statement on: a table distributed at its end
 * (distributeTables) cannot be after a statement of that transaction ran in parallel, such as an
 * UPDATE of every shard by an upgrade that also makes a table.
 */
export async function beforeMigrations(db: Queryable): Promise<void> {
  if (await onCitus(db)) await run(db, sequentially);
}

/** Distributes the tables Citus does not manage yet (see above); inside the migrations' transaction. */
export async function distributeTables(db: Queryable): Promise<void> {
  if (!(await onCitus(db))) return;
  const pending = await rowsOf(db, undistributed);
  if (pending.length === 0) return;
  await run(db, noLocalTables);
  await run(db, sequentially);
  for (const { name } of referencedFirst(pending.filter((table) => !table.tenant))) await run(db, makeReference, name);
  let group = (await rowsOf(db, anchor))[0]?.name ?? 'default';
  for (const { name } of referencedFirst(pending.filter((table) => table.tenant))) {
    await run(db, distribute, name, group);
    if (group === 'default') group = name;
  }
  for (const { name } of pending) await run(db, dropLocalCopy, name);
}

/** `tables` in an order where each comes after those it references: Citus distributes a table only once its referenced tables are. */
function referencedFirst<T extends { name: string; referenced: string[] }>(tables: readonly T[]): T[] {
  const ordered: T[] = [];
  let waiting = [...tables];
  while (waiting.length > 0) {
    const ready = waiting.filter((table) => table.referenced.every((name) => !waiting.some((other) => other !== table && other.name === name)));
    if (ready.length === 0) throw new Error(`foreign keys go round between ${waiting.map((table) => table.name).join(', ')}`);
    ordered.push(...ready);
    waiting = waiting.filter((table) => !ready.includes(table));
  }
  return ordered;
}
