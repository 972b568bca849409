/**
 * `node --import tsx bench/versus.ts SERVER SERVER [SERVER ...] -- [KIND[@CONNECTIONS] ...]`
 * (the `--` may be left out when every server is a directory or a ruler): servers side by side
 * over the same stores, the given scenarios (default: the first page at 8 connections) run
 * against each in turn, BENCH_ROUNDS times, in an order that changes every round. On a shared
 * machine this is the comparison to trust: all see the same noise. Prints medians, each
 * server's throughput and server CPU per request against the first server's, and writes them
 * to bench/results/versus-<time>.md.
 *
 * A SERVER is
 * - a directory holding `bin/compdata.js` and its `dist/` (this checkout `.`, a copy at another
 *   commit), with serve arguments after colons: `.:--workers=2`. `--db=URL` serves that
 *   database instead of the bench's read store: it must hold the same records, for example
 *   seeded by the same `compdata seed` (bench/stores.ts) on PostgreSQL:
 *   `.:--db=postgres://postgres@127.0.0.1:54330/bench`. For the bulk scenarios such a server
 *   gets the database `<its database>_bulk` on the same PostgreSQL server (`bench_bulk` here),
 *   created and filled when missing (bulkStore.ts) and kept between runs: two builds compared
 *   on one PostgreSQL server each name a database of their own (a build may migrate it). The CPU time of the PostgreSQL server (the
 *   postmaster of BENCH_POSTGRES_DATA, default bench/.work/postgres/data, and its children) is
 *   counted as that server's;
 * - `bare:memory`, `bare:sqlite`, `bare:statement` or `bare:key-in-memory`: the rulers of
 *   bareServer.ts (read scenarios of `/v1/reporting` only; `bare:statement`, a frozen page
 *   statement on the service's own file with the key looked up, and `bare:key-in-memory`, the
 *   service's current statements with one key held in memory, also answer `reporting-count` and
 *   `reporting-unauthorized`).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import pg from 'pg';
import { bulkBodies, fillBulkStore, tenantUsersFor, type BulkStore } from './bulkStore.js';
import { benchConfig } from './config.js';
import { filteredPaths, type FilteredPaths } from './filteredPaths.js';
import { runScenario, type Sample, type Target } from './load.js';
import { allScenarios, type Scenario } from './scenarios.js';
import { postmasterPid, startServerProcess, type ServerOptions, type ServerProcess } from './serverProcess.js';
import { alternated, median } from './stats.js';
import { prepareBulkRunStore, prepareReadStore } from './stores.js';

const argv = process.argv.slice(2);
const isServer = (arg: string) => arg.startsWith('bare:') || arg.startsWith('.') || arg.startsWith('/');
const split = argv.indexOf('--');
const specs = split >= 0 ? argv.slice(0, split) : argv.filter(isServer);
const wanted = split >= 0 ? argv.slice(split + 1) : argv.filter((arg) => !isServer(arg));
if (specs.length < 2) {
  console.error('usage: versus.ts SERVER SERVER [SERVER ...] [--] [KIND[@CONNECTIONS] ...]');
  process.exit(2);
}
const config = benchConfig();

function everyScenario(users: number | undefined, filtered?: FilteredPaths): Scenario[] {
  return allScenarios({
    config: { ...config, connections: [...new Set([1, ...config.connections])] },
    deepNextPath: `/v1/reporting?limit=${config.limit}&offset=${config.records - config.limit}`,
    bulkBodies: users === undefined ? [] : bulkBodies(64, config.bulkItems, users),
    tenantBulkBodies: users === undefined ? [] : bulkBodies(64, config.bulkItems, tenantUsersFor(users)),
    filtered,
  });
}

function chosenScenarios(users: number | undefined, filtered?: FilteredPaths): Scenario[] {
  const scenarios = everyScenario(users, filtered);
  return (wanted.length > 0 ? wanted : ['reporting-first@8']).map((name) => {
    const [kind, connections = '8'] = name.split('@');
    const found = scenarios.find((scenario) => scenario.kind === kind && scenario.connections === Number(connections));
    if (!found) throw new Error(`no scenario ${name}`);
    return found;
  });
}

/** How to start a SERVER (see the top of this file), and the database it serves when not the bench's. */
function serverOptions(spec: string): ServerOptions & { db?: string } {
  const bare = spec.startsWith('bare:') ? spec.slice('bare:'.length) : undefined;
  if (bare === 'memory' || bare === 'sqlite' || bare === 'statement' || bare === 'key-in-memory') return { bare };
  const [dir, ...args] = spec.split(/:(?=--)/);
  const pairs = args.map((arg) => (arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg]));
  const db = pairs.find(([name]) => name === '--db')?.[1];
  const serveArgs = pairs.filter(([name]) => name !== '--db').flat();
  const databasePid = db && /^postgres(ql)?:/.test(db) ? postmasterPid(process.env.BENCH_POSTGRES_DATA ?? 'bench/.work/postgres/data') : undefined;
  return { bin: `${dir}/bin/compdata.js`, db, databasePid, serveArgs: ['--max-concurrent', String(config.maxConcurrent), ...serveArgs] };
}

/** The bulk store on the PostgreSQL server of `url`: the database named after `url`'s with `_bulk`, created and filled when missing. */
async function postgresBulkStore(url: string, users: number): Promise<BulkStore & { dbPath: string }> {
  const bulkUrl = new URL(url);
  const name = `${bulkUrl.pathname.slice(1)}_bulk`;
  if (!/^\w+$/.test(name)) throw new Error(`--db: a database name of letters, digits and _ (${name})`);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const missing = (await admin.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [name])).rowCount === 0;
    if (missing) await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  bulkUrl.pathname = `/${name}`;
  const started = Date.now();
  const store = await fillBulkStore(bulkUrl.toString(), users);
  if (Date.now() - started > 5000) console.log(`filled the PostgreSQL bulk store in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { dbPath: bulkUrl.toString(), ...store };
}

/** A key of the tenant `bench` in the database `db`, made by the build at `bin`. */
function keyIn(bin: string, db: string): string {
  return execFileSync(process.execPath, [bin, 'keys', 'create', '--db', db, '--tenant', 'bench'], { encoding: 'utf8' }).trim().split('\n').at(-1)!;
}

async function main(): Promise<void> {
  const store = prepareReadStore(config);
  const bulk = wanted.some((name) => name.startsWith('bulk-')) ? await prepareBulkRunStore(config) : undefined;
  const servers: Record<'read' | 'bulk', ServerProcess[]> = { read: [], bulk: [] };
  const readKeys: string[] = [];
  const bulkKeys: BulkStore[] = [];
  try {
    for (const [index, spec] of specs.entries()) {
      const options = serverOptions(spec);
      servers.read.push(await startServerProcess(options.db ?? store.dbPath, options));
      readKeys.push(options.db ? keyIn(options.bin!, options.db) : store.key);
      if (!bulk || options.bare) continue;
      // Each its own copy of the bulk store: the PUTs change it, and a build may migrate it.
      const own = options.db ? await postgresBulkStore(options.db, bulk.users) : await prepareBulkRunStore(config, `run-${index}`);
      servers.bulk.push(await startServerProcess(own.dbPath, options));
      bulkKeys.push(own);
    }
    const targetsOf = (scenario: Scenario): Target[] =>
      scenario.server === 'read'
        ? servers.read.map((server, i) => ({ server, key: readKeys[i]! }))
        : servers.bulk.map((server, i) => ({ server, key: bulkKeys[i]!.key, tenantKeys: bulkKeys[i]!.tenantKeys }));
    // The filtered scenarios' requests, found on the first server (every server must serve the same records).
    const filtered = wanted.some((name) => name.startsWith('reporting-user-')) ? await filteredPaths(servers.read[0]!.url, readKeys[0]!, config.limit) : undefined;
    const scenarios = chosenScenarios(bulk?.users, filtered);
    const samples: Sample[][][] = scenarios.map((scenario) => targetsOf(scenario).map(() => []));
    // One walk of every reporting record on each read server, as the suite's warm-up does: each
    // process has then mapped the pages of the file it reads, so that no run pays the first
    // touch of pages (random small pages would touch most of them for the first time).
    const walk = everyScenario(undefined).find((scenario) => scenario.kind === 'reporting-walk' && scenario.connections === 1)!;
    if (scenarios.some((scenario) => scenario.server === 'read')) {
      for (const [i, server] of servers.read.entries()) await runScenario(walk, { server, key: readKeys[i]! }, 0, Math.ceil(config.records / config.limit));
    }
    for (const scenario of scenarios) for (const target of targetsOf(scenario)) await runScenario(scenario, target, 1);
    for (let round = 0; round < config.rounds; round += 1) {
      for (const [index, scenario] of scenarios.entries()) {
        const sides = targetsOf(scenario).map((_, side) => side);
        const order = alternated(sides, round);
        for (const side of order) samples[index]![side]!.push(await runScenario(scenario, targetsOf(scenario)[side]!, config.seconds));
      }
    }
    const lines = [
      '| scenario | conns | server | req/s | records/s | ÷ first | server CPU ms/req | ÷ first | server cores | autocannon cores | p50 ms | p99 ms | errors / non-2xx |',
      '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ];
    for (const [index, scenario] of scenarios.entries()) {
      const medians = samples[index]!.map((list) => (field: keyof Sample) => median(list.map((sample) => sample[field])));
      const first = medians[0]!;
      const names = scenario.server === 'read' ? specs : specs.filter((spec) => !spec.startsWith('bare:'));
      for (const [side, m] of medians.entries()) {
        lines.push(
          `| ${scenario.title} | ${scenario.connections} | ${names[side]} | ${m('requestsPerSecond').toFixed(1)} | ${Math.round(m('recordsPerSecond'))} | ` +
            `${(m('requestsPerSecond') / first('requestsPerSecond')).toFixed(2)} | ${m('serverCpuMsPerRequest').toFixed(3)} | ` +
            `${(m('serverCpuMsPerRequest') / first('serverCpuMsPerRequest')).toFixed(2)} | ${m('serverCores').toFixed(2)} | ${m('loadGeneratorCores').toFixed(2)} | ` +
            `${m('p50').toFixed(1)} | ${m('p99').toFixed(1)} | ${m('errors')} / ${m('non2xx')} |`,
        );
      }
    }
    const load = loadavg().map((n) => n.toFixed(2)).join(' ');
    lines.push('', `medians of ${config.rounds} rounds of ${config.seconds} s, ${config.records} records; servers: ${specs.join(', ')}; load average at the end ${load}`);
    console.log(lines.join('\n'));
    mkdirSync(config.resultsDir, { recursive: true });
    writeFileSync(`${config.resultsDir}/versus-${new Date().toISOString().replace(/[:.]/g, '-')}.md`, `${lines.join('\n')}\n`);
  } finally {
    for (const server of [...servers.read, ...servers.bulk]) await server.stop();
  }
}

await main();
