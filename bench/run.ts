/**
 * `make bench` (and `make bench-quick`): the service under load. Builds or reuses its stores
 * (stores.ts), starts `compdata serve` as separate processes (one over the read store, one over
 * a fresh copy of the bulk store), warms them up, then runs every scenario (scenarios.ts) at
 * every connection count with autocannon, BENCH_ROUNDS times in alternating orders, measuring
 * the in-process ceiling (ceiling.ts) once per round. Prints and writes to bench/results/ the
 * medians (JSON and markdown), the targets, and a latency chart (SVG). Settings: config.ts.
 */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, release, totalmem, type as osType } from 'node:os';
import { dealCount } from '../src/dataset/deals.js';
import { bulkBodies, tenantUsersFor } from './bulkStore.js';
import { measureCeilings, type CeilingRates } from './ceiling.js';
import { writeLatencyChart } from './charts.js';
import { benchConfig, type BenchConfig } from './config.js';
import { runScenario, type Target } from './load.js';
import { markdownReport, medianCeilings, resultRows, targetChecks, writeResult, type BenchResult, type RunSample } from './report.js';
import { filteredPaths } from './filteredPaths.js';
import { allScenarios, nextPathIn, READ_PATH, type Scenario } from './scenarios.js';
import { startServerProcess, type ServerProcess } from './serverProcess.js';
import { prepareBulkRunStore, prepareReadStore, type Stores } from './stores.js';
import { alternated } from './stats.js';

/** Bodies of bulk PUTs in rotation. */
const BULK_BODIES = 64;

/** The deep page's path as `next` of the page before it gives it (with whatever `next` carries). */
async function deepNextPath(url: string, key: string, config: BenchConfig): Promise<string> {
  const before = `${url}${READ_PATH}?limit=${config.limit}&offset=${config.records - 2 * config.limit}`;
  const response = await fetch(before, { headers: { 'X-API-Key': key } });
  const path = nextPathIn(await response.text());
  if (!path) throw new Error(`no next on ${before}`);
  return path;
}

/**
 * One full walk of the reporting records (so the server has mapped every page of them: its
 * idle RSS then counts the database pages the runs will touch), then one short run of each kind
 * of scenario at the depth chart's connection count (code compiled, caches warm).
 */
async function warmUp(config: BenchConfig, scenarios: readonly Scenario[], targetOf: (scenario: Scenario) => Target, connections: number): Promise<void> {
  const walks = scenarios.filter((scenario) => scenario.kind === 'reporting-walk').sort((a, b) => a.connections - b.connections);
  const walk = walks[0];
  if (walk) await runScenario(walk, targetOf(walk), 0, Math.ceil(config.records / config.limit) * walk.connections);
  for (const scenario of scenarios) {
    if (scenario.connections === connections && scenario.kind !== 'reporting-depth') await runScenario(scenario, targetOf(scenario), config.warmUpSeconds);
  }
}

async function measureRounds(config: BenchConfig, stores: Stores, scenarios: readonly Scenario[], targetOf: (scenario: Scenario) => Target) {
  const samples = new Map<Scenario, RunSample[]>(scenarios.map((scenario) => [scenario, []]));
  const ceilings: CeilingRates[] = [];
  let sequence = 0;
  for (let round = 0; round < config.rounds; round += 1) {
    ceilings.push(measureCeilings(stores.read.dbPath, stores.read.key, config));
    const order = alternated(scenarios, round);
    for (const [index, scenario] of order.entries()) {
      const sample = await runScenario(scenario, targetOf(scenario), config.seconds);
      samples.get(scenario)!.push({ ...sample, round, sequence: sequence++ });
      const failures = sample.errors + sample.non2xx > 0 ? `, ${sample.errors} errors, ${sample.non2xx} non-2xx` : '';
      console.log(
        `[round ${round + 1}/${config.rounds}, ${index + 1}/${order.length}] ${scenario.title} @ ${scenario.connections}: ` +
          `${sample.requestsPerSecond.toFixed(0)} req/s, p50 ${sample.p50} ms, p99 ${sample.p99} ms${failures}`,
      );
    }
  }
  return { samples, ceilings: medianCeilings(ceilings) };
}

function gitState(): { commit: string; dirty: boolean } {
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
  return { commit: git('rev-parse', '--short', 'HEAD'), dirty: git('status', '--porcelain', '--untracked-files=no').length > 0 };
}

async function main(): Promise<void> {
  const config = benchConfig();
  const startedAt = new Date();
  const loadBefore = loadavg();
  const stores: Stores = { read: prepareReadStore(config), bulk: await prepareBulkRunStore(config) };
  const serveOptions = { bin: config.serverBin, serveArgs: ['--max-concurrent', String(config.maxConcurrent)] };
  const servers: ServerProcess[] = [];
  try {
    const read = await startServerProcess(stores.read.dbPath, serveOptions);
    servers.push(read);
    const bulk = await startServerProcess(stores.bulk.dbPath, serveOptions);
    servers.push(bulk);
    const targetOf = (scenario: Scenario): Target =>
      scenario.server === 'read' ? { server: read, key: stores.read.key } : { server: bulk, key: stores.bulk.key, tenantKeys: stores.bulk.tenantKeys };
    const scenarios = allScenarios({
      config,
      deepNextPath: await deepNextPath(read.url, stores.read.key, config),
      bulkBodies: bulkBodies(BULK_BODIES, config.bulkItems, stores.bulk.users),
      tenantBulkBodies: bulkBodies(BULK_BODIES, config.bulkItems, tenantUsersFor(stores.bulk.users)),
      filtered: await filteredPaths(read.url, stores.read.key, config.limit),
      // Its answers are 401s, which the suite counts as failures: measured with versus.ts.
    }).filter((scenario) => scenario.kind !== 'reporting-unauthorized');
    const chartConnections = scenarios.find((scenario) => scenario.kind === 'reporting-depth')?.connections ?? config.connections[0]!;
    await warmUp(config, scenarios, targetOf, chartConnections);
    const idle = { read: read.memory(), bulk: bulk.memory() };
    const { samples, ceilings } = await measureRounds(config, stores, scenarios, targetOf);
    const rows = resultRows(scenarios, samples, ceilings);
    const result: BenchResult = {
      startedAt: startedAt.toISOString(),
      totalSeconds: (Date.now() - startedAt.getTime()) / 1000,
      machine: {
        cores: cpus().length,
        cpuModel: cpus()[0]?.model ?? 'unknown',
        memoryGiB: Math.round(totalmem() / 2 ** 30),
        os: `${osType()} ${release()}`,
        loadBefore,
        loadAfter: loadavg(),
      },
      node: process.version,
      ...gitState(),
      sizes: { reportingRecords: config.records, tableRecords: dealCount(config.records), attributions: stores.bulk.attributions },
      settings: {
        rounds: config.rounds,
        seconds: config.seconds,
        connections: config.connections,
        maxConcurrent: config.maxConcurrent,
        limit: config.limit,
        smallLimit: config.smallLimit,
        bulkItems: config.bulkItems,
        serverBin: config.serverBin,
      },
      idle,
      ceilings,
      rows,
      targets: targetChecks(rows, idle.read, config.connections),
    };
    const markdown = markdownReport(result);
    const base = writeResult(config.resultsDir, result, markdown);
    await writeLatencyChart(`${base}-latency.svg`, rows, chartConnections);
    console.log(`\n${markdown}\n\nwritten: ${base}.json, ${base}.md, ${base}-latency.svg`);
  } finally {
    for (const server of servers) await server.stop();
  }
}

await main();
