/**
 * Where the time of a sandbox's copy, reset and deletion goes, in process (no HTTP, no thread),
 * on SQLite or, with `--postgres`, on a PostgreSQL server started for the run
 * (scripts/embeddedPostgres.ts): a template of RECORDS records seeded as `compdata seed` seeds
 * one, then RUNS times the engine-neutral steps of AdminStore.copyTenant (with a recipe: the
 * origin made from the template in the first run, then the sandbox; the origin of the template's
 * present version outlives its last sandbox, so later runs find it), resetTenant (the sandbox's
 * data deleted, then copied from the origin) and deleteTenant (the sandbox; its origin stays),
 * each in one transaction as the store runs them; beside them a second copy made while the first
 * is there, and its deletion. The medians are those of a create and delete loop.
 * Every statement is timed (SQLite: by wrapping the
 * connection's `prepare`; PostgreSQL: its `query`), the commit apart; medians over the runs in
 * milliseconds, with this process's CPU time per operation. The SQLite connection does not
 * checkpoint at its commits, as the server's transaction thread (its checkpoint thread does);
 * `--checkpoint-at-commit`: SQLite's default, as a CLI connection. `--without-index NAME`: that
 * SQLite index dropped first, to see what it costs.
 *
 *   node --import tsx bench/sandboxCopySteps.ts [--postgres] [--runs 10] [--records 10000] [--checkpoint-at-commit] [--without-index NAME]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startCluster } from '../scripts/embeddedPostgres.js';
import { generateSeed } from '../src/dataset/generateSeed.js';
import { seedTenant } from '../src/dataset/seedTenant.js';
import { copyFromOrigin, copyInto, dropUnusedOrigin } from '../src/store/admin/sandboxCopies.js';
import type { WriteSteps } from '../src/store/engine/transactionSteps.js';
import { openStore } from '../src/store/openStore.js';
import { openDatabase, type Db } from '../src/store/sqlite/db.js';
import { writeSteps as sqliteSteps } from '../src/store/sqlite/writeSteps.js';
import { writeSteps as postgresSteps } from '../src/store/postgres/writeSteps.js';
import { median } from './stats.js';

const { values: args } = parseArgs({
  options: {
    postgres: { type: 'boolean', default: false },
    runs: { type: 'string', default: '10' },
    records: { type: 'string', default: '10000' },
    'checkpoint-at-commit': { type: 'boolean', default: false },
    'without-index': { type: 'string', multiple: true, default: [] },
  },
});
const RUNS = Number(args.runs);
const RECORDS = Number(args.records);

/** A connection whose statements are timed, in one transaction at a time. */
interface TimedConnection {
  steps: WriteSteps;
  exec: (sql: string) => Promise<void>;
  close: () => Promise<void>;
}

/** Milliseconds of each statement in the operation being measured, by the statement's first words. */
let current = new Map<string, number>();
const label = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 70);
const count = (sql: string, started: number) => current.set(label(sql), (current.get(label(sql)) ?? 0) + performance.now() - started);

const work = mkdtempSync(join(tmpdir(), 'compdata-copy-steps-'));
const cluster = args.postgres ? await startCluster() : undefined;
try {
  let location = join(work, 'bench.db');
  if (cluster) {
    const admin = new pg.Client({ connectionString: cluster.adminUrl });
    await admin.connect();
    await admin.query('CREATE DATABASE copy_steps');
    await admin.end();
    location = cluster.adminUrl.replace(/\/postgres$/, '/copy_steps');
  }
  const seeding = await openStore(location, { role: 'command' });
  await seedTenant(seeding, 'template', generateSeed({ seed: 'bench', users: Math.max(10, Math.round(RECORDS / 50)), records: RECORDS }));
  await seeding.close();
  const connection = cluster ? await postgresConnection(location) : sqliteConnection(location);
  await measure(connection);
  await connection.close();
} finally {
  await cluster?.stop();
  rmSync(work, { recursive: true, force: true });
}

async function measure({ steps, exec }: TimedConnection): Promise<void> {
  const times = {
    copy: [] as Map<string, number>[],
    'copy, the origin there already (a second sandbox of the same version)': [] as Map<string, number>[],
    reset: [] as Map<string, number>[],
    'delete, the origin still in use': [] as Map<string, number>[],
    delete: [] as Map<string, number>[],
  };
  /** `operation` in one transaction, its statements timed into `into`, the commit apart. */
  const measured = async (into: Map<string, number>[], operation: () => Promise<unknown>) => {
    current = new Map();
    const cpu = process.cpuUsage();
    const started = performance.now();
    await exec(cluster ? 'BEGIN' : 'BEGIN IMMEDIATE');
    await operation();
    const committing = performance.now();
    await exec('COMMIT');
    current.set('COMMIT', performance.now() - committing);
    current.set('(whole transaction)', performance.now() - started);
    const used = process.cpuUsage(cpu);
    current.set('(CPU of this process, user + system)', (used.user + used.system) / 1000);
    into.push(current);
  };
  for (let run = 0; run < RUNS; run += 1) {
    const name = `copy-${run}`;
    await measured(times.copy, () => copyInto(steps, 'template', name, JSON.stringify({ template: 'template' })));
    await measured(times['copy, the origin there already (a second sandbox of the same version)'], () =>
      copyInto(steps, 'template', `twin-${run}`, JSON.stringify({ template: 'template' })),
    );
    const twin = (await steps.findTenant(`twin-${run}`))!.id;
    await measured(times['delete, the origin still in use'], async () => {
      const { origin } = (await steps.recipe(twin))!;
      await steps.deleteTenant(twin);
      await dropUnusedOrigin(steps, origin!);
    });
    const sandbox = (await steps.findTenant(name))!.id;
    await measured(times.reset, async () => {
      const { origin } = (await steps.recipe(sandbox))!;
      await steps.deleteData(sandbox);
      await steps.dropRequests(sandbox);
      await steps.dataChanged(sandbox);
      await copyFromOrigin(steps, origin!, sandbox, await steps.nextStamp(sandbox, true));
    });
    await measured(times.delete, async () => {
      const { origin } = (await steps.recipe(sandbox))!;
      await steps.deleteTenant(sandbox);
      await dropUnusedOrigin(steps, origin!);
    });
  }
  const how = cluster ? ['PostgreSQL'] : ['SQLite', args['checkpoint-at-commit'] ? 'checkpoint at commit' : 'no checkpoint at commit', ...args['without-index'].map((index) => `without ${index}`)];
  process.stdout.write(`${how.join(', ')}; template of ${RECORDS} records; medians of ${RUNS} runs, ms (load average ${readLoad()})\n`);
  for (const [operation, runs] of Object.entries(times)) {
    process.stdout.write(`\n${operation}\n`);
    const labels = [...new Set(runs.flatMap((one) => [...one.keys()]))];
    for (const statement of labels) {
      const value = median(runs.map((one) => one.get(statement) ?? 0).sort((a, b) => a - b));
      if (value >= 0.5 || statement.startsWith('(')) process.stdout.write(`  ${value.toFixed(1).padStart(7)}  ${statement}\n`);
    }
  }
}

/** SQLite: the connection's statements, each `run` timed. */
function sqliteConnection(path: string): TimedConnection {
  const db: Db = openDatabase(path, { role: 'writer' });
  if (!args['checkpoint-at-commit']) db.pragma('wal_autocheckpoint = 0');
  for (const index of args['without-index']) db.exec(`DROP INDEX ${index}`);
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    const statement = prepare(sql);
    for (const method of ['run', 'get', 'all'] as const) {
      const original = statement[method].bind(statement) as (...params: unknown[]) => unknown;
      Object.assign(statement, {
        [method]: (...params: unknown[]) => {
          const started = performance.now();
          try {
            return original(...params);
          } finally {
            count(sql, started);
          }
        },
      });
    }
    return statement;
  }) as Db['prepare'];
  return { steps: sqliteSteps(db), exec: async (sql) => void db.exec(sql), close: async () => void db.close() };
}

/** PostgreSQL: one client, each query timed. */
async function postgresConnection(url: string): Promise<TimedConnection> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const query = client.query.bind(client) as (config: unknown) => Promise<unknown>;
  Object.assign(client, {
    query: async (config: string | { text: string }) => {
      const started = performance.now();
      try {
        return await query(config);
      } finally {
        count(typeof config === 'string' ? config : config.text, started);
      }
    },
  });
  return { steps: postgresSteps(client as unknown as pg.PoolClient), exec: async (sql) => void (await client.query(sql)), close: () => client.end() };
}

function readLoad(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return '?';
  }
}
