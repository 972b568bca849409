/**
 * bulkCost.ts on PostgreSQL: what one bulk upsert of 200 items costs the store, without HTTP,
 * counting the database server's CPU as well as this process's. The same `tenantWrite` a server
 * calls, over a pool of one connection, on a fresh copy of the bulk store (`CREATE DATABASE ...
 * TEMPLATE` of the database at URL, created and filled by bulkStore.ts when missing), with the suite's
 * request bodies:
 *
 *   node --import tsx bench/bulkCostPostgres.ts URL [UPSERTS_PER_ROUND] [ROUNDS] [--spread] [--statements] [--explain] [--build=DIR]
 *
 * URL names the bulk store's database on a server of its own (every process under the server's
 * postmaster is counted: read from /proc, as serverCpu.mjs does; Linux only). Prints, as medians
 * of rounds: this process's CPU per upsert, the server's (its backends, WAL writer, checkpointer
 * and the rest), the two together, wall time, and the WAL bytes one upsert writes (from
 * `pg_current_wal_lsn()`). Each round starts after a `CHECKPOINT`, so every round pays the full
 * pages the first change of a page after a checkpoint writes. `--statements` also counts the
 * round trips per upsert by statement, with the backend's CPU for each (/proc/PID/schedstat); `--explain` prints the plan of each statement of one more
 * upsert as it ran (auto_explain). `--build=DIR` takes the store's code from another checkout
 * (its `src/`), to compare two builds on the same copy of the store.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { bulkBodies, fillBulkStore, spreadBody, usersFor } from './bulkStore.js';
import { benchConfig } from './config.js';
import { median } from './stats.js';

const positional = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const [url, perRoundText = '100', roundsText = '3'] = positional;
if (!url) {
  console.error('usage: bulkCostPostgres.ts URL [UPSERTS_PER_ROUND] [ROUNDS] [--spread] [--statements] [--build=DIR]');
  process.exit(2);
}
const perRound = Number(perRoundText);
const rounds = Number(roundsText);
const build = resolve(process.argv.find((arg) => arg.startsWith('--build='))?.slice('--build='.length) ?? '.');
const spread = process.argv.includes('--spread');
const config = benchConfig();
const users = usersFor(config.attributions);

type Modules = {
  tenantWrite: typeof import('../src/store/postgres/writeTransaction.js').tenantWrite;
  migrate: typeof import('../src/store/postgres/migrations.js').migrate;
  upsertsFromBody: typeof import('../src/http/bulkItems.js').upsertsFromBody;
  openPool: typeof import('../src/store/postgres/connection.js').openPool;
};
const from = async <M>(path: string): Promise<M> => (await import(pathToFileURL(`${build}/src/${path}`).href)) as M;
const { tenantWrite } = await from<Pick<Modules, 'tenantWrite'>>('store/postgres/writeTransaction.ts');
const { migrate } = await from<Pick<Modules, 'migrate'>>('store/postgres/migrations.ts');
const { upsertsFromBody } = await from<Pick<Modules, 'upsertsFromBody'>>('http/bulkItems.ts');
const { openPool } = await from<Pick<Modules, 'openPool'>>('store/postgres/connection.ts');

const template = new URL(url);
const copy = new URL(url);
copy.pathname = `${template.pathname}_run`;
const admin = new pg.Client({ connectionString: template.toString().replace(/\/[^/]*$/, '/postgres') });
await admin.connect();
// Filled (and migrated) by this build when missing; else left as it is, so that each build migrates only its copy.
if ((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template.pathname.slice(1)])).rowCount === 0) {
  await admin.query(`CREATE DATABASE ${template.pathname.slice(1)}`);
  await fillBulkStore(template.toString(), users);
}
await admin.query(`DROP DATABASE IF EXISTS ${copy.pathname.slice(1)}`);
await admin.query(`CREATE DATABASE ${copy.pathname.slice(1)} TEMPLATE ${template.pathname.slice(1)} STRATEGY FILE_COPY`);
await admin.end();

const pool = openPool(copy.toString(), { size: 1, onIdleError: (error) => console.error(error) }); // as a server's, of one connection
await migrate(pool);
const tenantId = Number((await pool.query<{ id: string }>(`SELECT id FROM tenants WHERE name = 'bench'`)).rows[0]!.id);
const backendPid = Number((await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid);
const postmaster = parentOf(backendPid);
const counted = process.argv.includes('--statements') ? countStatements(pool, backendPid) : undefined;

const bodies = bulkBodies(perRound * rounds, config.bulkItems, users).map((drawn, index) => {
  const body = spread ? spreadBody(drawn, index, users) : drawn;
  const parsed = upsertsFromBody((JSON.parse(body) as { data: Parameters<typeof upsertsFromBody>[0] }).data);
  if ('problems' in parsed) throw new Error('a bench body has items that end before they start');
  return parsed.upserts;
});

const lsn = async () => (await pool.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn;
const walBytes = async (since: string) => Number((await pool.query<{ d: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS d', [since])).rows[0]!.d);
const own: number[] = [];
const server: number[] = [];
const both: number[] = [];
const wall: number[] = [];
const wal: number[] = [];
let walRange = ''; // the last round's, for pg_waldump --stats
for (let round = 0; round < rounds; round += 1) {
  await pool.query('CHECKPOINT');
  const walFrom = await lsn();
  counted?.reset();
  const serverFrom = serverTicks(postmaster);
  const startedCpu = process.cpuUsage();
  const started = performance.now();
  for (const items of bodies.slice(round * perRound, (round + 1) * perRound)) {
    const outcome = await tenantWrite(pool, tenantId, { kind: 'attributions', items }, 5000);
    if ('broken' in outcome) throw new Error(`a bench body broke a rule: ${outcome.broken.detail}`);
  }
  const used = process.cpuUsage(startedCpu);
  counted?.stop();
  wall.push((performance.now() - started) / perRound);
  own.push((used.user + used.system) / 1000 / perRound);
  server.push(((serverTicks(postmaster) - serverFrom) * 10) / perRound);
  both.push(own.at(-1)! + server.at(-1)!);
  wal.push((await walBytes(walFrom)) / perRound);
  walRange = `${walFrom}..${await lsn()}`;
}
if (process.argv.includes('--explain')) await explainOne(bodies.at(-1)!);
await pool.end();
const ms = (values: number[]) => `${median(values).toFixed(2)} (${values.map((v) => v.toFixed(2)).join(', ')})`;
console.log(
  `bulk upsert of ${config.bulkItems} items${spread ? ' (spread)' : ''} over ${users} users, build ${build}, medians of ${rounds} rounds of ${perRound}:\n` +
    `  CPU ms per upsert: process ${ms(own)}, PostgreSQL ${ms(server)}, together ${ms(both)}; wall ${ms(wall)}\n` +
    `  WAL bytes per upsert ${median(wal).toFixed(0)} (${wal.map((v) => v.toFixed(0)).join(', ')}); the last round's WAL: ${walRange}`,
);
if (counted) console.log(counted.table(perRound));

/**
 * Runs `items` once more (after the rounds) with auto_explain on the connection, and prints each
 * statement's plan as executed (rows, buffers, WAL, triggers): sent to this client as notices.
 */
async function explainOne(items: (typeof bodies)[number]): Promise<void> {
  const client = await pool.connect();
  const settings = ['log_min_duration = 0', 'log_analyze = on', 'log_buffers = on', 'log_wal = on', 'log_triggers = on', 'log_level = notice'];
  await client.query(`LOAD 'auto_explain'; ${settings.map((setting) => `SET auto_explain.${setting};`).join(' ')}`);
  client.on('notice', (notice) => console.log(`${notice.message}\n`));
  client.release();
  await tenantWrite(pool, tenantId, { kind: 'attributions', items }, 5000);
}

/** A process's parent, from /proc. */
function parentOf(pid: number): number {
  return Number(statFields(pid)![1]);
}

/** The fields of /proc/PID/stat after the command's name, or undefined when the process is gone. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** CPU ticks (1/100 s) of the postmaster, its children alive, and those it has reaped. */
function serverTicks(root: number): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (!fields) continue;
    const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((at) => Number(fields[at]));
    if (Number(entry) === root) total += utime! + stime! + cutime! + cstime!;
    else if (Number(fields[1]) === root) total += utime! + stime!;
  }
  return total;
}

/** The CPU time a process has run, in milliseconds (/proc/PID/schedstat, in nanoseconds). */
function backendCpuMs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

/** Counts the queries sent on the pool's connections by their text (statements, BEGIN and COMMIT), and the wall time each waits for its answer. */
function countStatements(target: pg.Pool, backend: number): { reset(): void; stop(): void; table(upserts: number): string } {
  let counting = false;
  let sent = new Map<string, { calls: number; ms: number; backendMs: number }>();
  target.on('connect', (client) => watch(client));
  // The pool's one connection is already open: watch it the next time it is handed out.
  target.on('acquire', (client) => watch(client));
  const watched = new WeakSet<pg.PoolClient>();
  function watch(client: pg.PoolClient): void {
    if (watched.has(client)) return;
    watched.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const first = args[0];
      const text = typeof first === 'string' ? first : (first as { text: string }).text;
      if (!counting) return query(...args);
      const key = text.replace(/\s+/g, ' ').trim();
      const entry = sent.get(key) ?? { calls: 0, ms: 0, backendMs: 0 };
      sent.set(key, entry);
      entry.calls += 1;
      const started = performance.now();
      const backendFrom = backendCpuMs(backend);
      const done = () => {
        entry.ms += performance.now() - started;
        entry.backendMs += backendCpuMs(backend) - backendFrom;
      };
      const result = query(...args) as Promise<unknown> | undefined; // undefined when called back (the pool's own queries)
      result?.then(done, done);
      return result;
    };
  }
  return {
    reset() {
      sent = new Map();
      counting = true;
    },
    stop: () => void (counting = false),
    table(upserts) {
      const rows = [...sent].sort((a, b) => b[1].backendMs - a[1].backendMs);
      const total = rows.reduce((sum, [, entry]) => sum + entry.calls, 0);
      return [
        `${(total / upserts).toFixed(1)} queries per upsert (last round); the backend's CPU and the wall time from sending a query to its answer`,
        '| backend CPU ms per upsert | wall ms per upsert | calls per upsert | statement |',
        '|---:|---:|---:|---|',
        ...rows.map(
          ([text, { calls, ms, backendMs }]) =>
            `| ${(backendMs / upserts).toFixed(2)} | ${(ms / upserts).toFixed(2)} | ${(calls / upserts).toFixed(1)} | ${text.length > 110 ? `${text.slice(0, 110)}…` : text} |`,
        ),
      ].join('\n');
    },
  };
}
