/**
 * `node --import tsx bench/versus.ts A_DIR B_DIR [KIND[@CONNECTIONS] ...]`: two builds of the
 * server (directories holding `bin/compdata.js` and its `dist/`, a copy of this checkout at
 * another commit, say) over the same stores, the given scenarios (default: the first page at
 * 8 connections) run against A and B in turn, BENCH_ROUNDS times, alternating which goes first.
 * On a shared machine this is the comparison to trust: both see the same noise. Prints medians
 * and the ratio B ÷ A, and writes them to bench/results/versus-<time>.md.
 *
 * A directory may carry serve arguments after a colon: `. :--workers=2` is not it, but
 * `.:--workers=2` runs this checkout with two workers (compare `. .:--workers=2`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { benchConfig } from './config.js';
import { runScenario, type Sample, type Target } from './load.js';
import { allScenarios, type Scenario } from './scenarios.js';
import { startServerProcess, type ServerProcess } from './serverProcess.js';
import { median } from './stats.js';
import { bulkBodies } from './bulkStore.js';
import { prepareBulkRunStore, prepareReadStore } from './stores.js';

const [dirA, dirB, ...wanted] = process.argv.slice(2);
if (!dirA || !dirB) {
  console.error('usage: versus.ts A_DIR B_DIR [KIND[@CONNECTIONS] ...]');
  process.exit(2);
}
const config = benchConfig();

function chosenScenarios(bodies: string[]): Scenario[] {
  const scenarios = allScenarios({ config, deepNextPath: `/v1/reporting?limit=${config.limit}&offset=${config.records - config.limit}`, bulkBodies: bodies });
  return (wanted.length > 0 ? wanted : ['reporting-first@8']).map((name) => {
    const [kind, connections = '8'] = name.split('@');
    const found = scenarios.find((scenario) => scenario.kind === kind && scenario.connections === Number(connections));
    if (!found) throw new Error(`no scenario ${name}`);
    return found;
  });
}

/** `DIR` or `DIR:--opt=value:--other` (serve arguments after the colons). */
function build(spec: string): { dir: string; args: string[] } {
  const [dir, ...args] = spec.split(':');
  return { dir: dir!, args: args.flatMap((arg) => arg.split('=')) };
}

async function main(): Promise<void> {
  const store = prepareReadStore(config);
  const needsBulk = wanted.some((name) => name.startsWith('bulk-'));
  const bulk = needsBulk ? await prepareBulkRunStore(config) : undefined;
  const serveArgs = ['--max-concurrent', String(config.maxConcurrent)];
  const servers: Record<'read' | 'bulk', ServerProcess[]> = { read: [], bulk: [] };
  try {
    for (const spec of [dirA!, dirB!]) {
      const { dir, args } = build(spec);
      const options = { bin: `${dir}/bin/compdata.js`, serveArgs: [...serveArgs, ...args] };
      servers.read.push(await startServerProcess(store.dbPath, options));
      if (bulk) servers.bulk.push(await startServerProcess(bulk.dbPath, options));
    }
    const targetsOf = (scenario: Scenario): Target[] =>
      scenario.server === 'read' ? servers.read.map((server) => ({ server, key: store.key })) : servers.bulk.map((server) => ({ server, key: bulk!.key }));
    const scenarios = chosenScenarios(bulk ? bulkBodies(64, config.bulkItems, bulk.users) : []);
    const samples = scenarios.map(() => [[], []] as [Sample[], Sample[]]);
    for (const scenario of scenarios) for (const target of targetsOf(scenario)) await runScenario(scenario, target, 1);
    for (let round = 0; round < config.rounds; round += 1) {
      for (const [index, scenario] of scenarios.entries()) {
        const order = round % 2 === 0 ? [0, 1] : [1, 0];
        for (const side of order) samples[index]![side]!.push(await runScenario(scenario, targetsOf(scenario)[side]!, config.seconds));
      }
    }
    const lines = [
      '| scenario | conns | req/s A | req/s B | B ÷ A | server CPU ms/req A | B | server cores A | B | autocannon cores A | B | p50 ms A | B | p99 ms A | B | peak anon MiB A | B |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ];
    for (const [index, scenario] of scenarios.entries()) {
      const [a, b] = samples[index]!.map((list) => (field: keyof Sample) => median(list.map((sample) => sample[field])));
      const cells = [a!('requestsPerSecond').toFixed(1), b!('requestsPerSecond').toFixed(1), (b!('requestsPerSecond') / a!('requestsPerSecond')).toFixed(2)];
      cells.push(a!('serverCpuMsPerRequest').toFixed(3), b!('serverCpuMsPerRequest').toFixed(3));
      cells.push(...(['serverCores', 'loadGeneratorCores'] as const).flatMap((field) => [a!(field).toFixed(2), b!(field).toFixed(2)]));
      cells.push(...(['p50', 'p99', 'peakAnonMiB'] as const).flatMap((field) => [a!(field).toFixed(1), b!(field).toFixed(1)]));
      lines.push(`| ${scenario.title} | ${scenario.connections} | ${cells.join(' | ')} |`);
    }
    const load = loadavg().map((n) => n.toFixed(2)).join(' ');
    lines.push('', `${config.rounds} rounds of ${config.seconds} s, ${config.records} records; A = ${dirA}, B = ${dirB}; load average at the end ${load}`);
    console.log(lines.join('\n'));
    mkdirSync(config.resultsDir, { recursive: true });
    writeFileSync(`${config.resultsDir}/versus-${new Date().toISOString().replace(/[:.]/g, '-')}.md`, `${lines.join('\n')}\n`);
  } finally {
    for (const server of [...servers.read, ...servers.bulk]) await server.stop();
  }
}

await main();
