/**
 * A server past its limit of requests at once, for one or more builds in turn:
 * `node --import tsx bench/overload.ts [DIR ...]` (directories as for versus.ts; default this
 * checkout). Over the read store of BENCH_RECORDS (default here 100,000), one `compdata serve`
 * with its default `--max-concurrent` (64) per build, CONNECTIONS (default 500) connections
 * read `limit=2000` pages for SECONDS (default 20), while `GET /healthz` is probed every 100 ms
 * on a connection of its own. Shows the pages' status mix, errors and timeouts, the server's
 * peak RSS and anonymous RSS, the probes' statuses and p50/p99/max, and whether a normal page
 * answers 200 right after. Writes bench/results/overload-<time>.md.
 */
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { benchConfig } from './config.js';
import { timedRun } from './load.js';
import { READ_PATH } from './scenarios.js';
import { startServerProcess, type ServerProcess } from './serverProcess.js';
import { percentile } from './stats.js';
import { prepareReadStore } from './stores.js';

const builds = process.argv.slice(2);
if (builds.length === 0) builds.push('.');
process.env.BENCH_RECORDS ??= '100000';
const config = benchConfig();
const seconds = Number(process.env.SECONDS ?? 20);
const connections = Number(process.env.CONNECTIONS ?? 500);
const PROBE_EVERY_MS = 100;

interface Outcome {
  build: string;
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  peakRssMiB: number;
  peakAnonMiB: number;
  rssBeforeMiB: number;
  probes: { statuses: Record<string, number>; p50: number; p99: number; max: number };
  after: number;
}

/**
 * `GET /healthz` every PROBE_EVERY_MS until `stop()`: each answer's status and time. In a
 * thread of its own, so that the load generator's busy event loop does not delay the probes.
 */
function probeHealth(url: string): { stop(): Promise<{ statuses: Record<string, number>; times: number[] }> } {
  const worker = new Worker(PROBE_SOURCE, { eval: true, workerData: { url, everyMs: PROBE_EVERY_MS } });
  const done = once(worker, 'message') as Promise<[{ statuses: Record<string, number>; times: number[] }]>;
  return {
    stop: async () => {
      worker.postMessage('stop');
      const [result] = await done;
      await worker.terminate();
      return result;
    },
  };
}

const PROBE_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, everyMs } = workerData;
const statuses = {};
const times = [];
let running = true;
parentPort.on('message', () => (running = false));
(async () => {
  while (running) {
    const started = performance.now();
    try {
      const response = await fetch(url + '/healthz', { signal: AbortSignal.timeout(10000) });
      await response.arrayBuffer();
      statuses[response.status] = (statuses[response.status] || 0) + 1;
    } catch {
      statuses.error = (statuses.error || 0) + 1;
    }
    times.push(performance.now() - started);
    const wait = started + everyMs - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  parentPort.postMessage({ statuses, times });
})();
`;

async function overload(build: string, dbPath: string, key: string): Promise<Outcome> {
  const server: ServerProcess = await startServerProcess(dbPath, { bin: `${build}/bin/compdata.js` });
  try {
    const page = `${server.url}${READ_PATH}?limit=${config.limit}&offset=0`;
    await fetch(page, { headers: { 'X-API-Key': key } }).then((response) => response.arrayBuffer());
    server.resetPeak();
    const before = server.memory();
    let peakAnonMiB = before.anonRssMiB;
    const sampler = setInterval(() => (peakAnonMiB = Math.max(peakAnonMiB, server.memory().anonRssMiB)), 50);
    const probes = probeHealth(server.url);
    let run: Awaited<ReturnType<typeof timedRun>>;
    try {
      run = await timedRun({ url: page, connections, duration: seconds, timeout: 30, headers: { 'X-API-Key': key } });
    } finally {
      clearInterval(sampler);
    }
    const probed = await probes.stop();
    const after = await fetch(page, { headers: { 'X-API-Key': key } });
    await after.arrayBuffer();
    const statuses = Object.fromEntries(Object.entries(run.result.statusCodeStats ?? {}).map(([status, { count }]) => [status, count ?? 0]));
    const times = Float64Array.from(probed.times).sort();
    const round = (ms: number) => Math.round(ms * 10) / 10;
    return {
      build,
      statuses,
      errors: run.result.errors,
      timeouts: run.result.timeouts,
      peakRssMiB: server.memory().peakRssMiB,
      peakAnonMiB,
      rssBeforeMiB: before.rssMiB,
      probes: { statuses: probed.statuses, p50: round(percentile(times, 50)), p99: round(percentile(times, 99)), max: round(times.at(-1) ?? NaN) },
      after: after.status,
    };
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const store = prepareReadStore(config);
  const outcomes: Outcome[] = [];
  for (const build of builds) outcomes.push(await overload(build, store.dbPath, store.key));
  const mix = (statuses: Record<string, number>) => Object.entries(statuses).map(([status, count]) => `${count} × ${status}`).join(', ');
  const lines = [
    `${connections} connections reading limit=${config.limit} pages for ${seconds} s, ${config.records} records, serve's default --max-concurrent; GET /healthz every ${PROBE_EVERY_MS} ms beside them`,
    '',
    '| build | pages: statuses | errors / timeouts | RSS before → peak MiB | peak anon MiB | /healthz: statuses | /healthz p50 / p99 / max ms | a page right after |',
    '|---|---|---:|---:|---:|---|---:|---:|',
    ...outcomes.map(
      (o) =>
        `| ${o.build} | ${mix(o.statuses)} | ${o.errors} / ${o.timeouts} | ${o.rssBeforeMiB.toFixed(0)} → ${o.peakRssMiB.toFixed(0)} | ${o.peakAnonMiB.toFixed(0)} | ` +
        `${mix(o.probes.statuses)} | ${o.probes.p50} / ${o.probes.p99} / ${o.probes.max} | ${o.after} |`,
    ),
    '',
    `load average at the end ${loadavg().map((n) => n.toFixed(2)).join(' ')}`,
  ];
  console.log(lines.join('\n'));
  mkdirSync(config.resultsDir, { recursive: true });
  writeFileSync(`${config.resultsDir}/overload-${new Date().toISOString().replace(/[:.]/g, '-')}.md`, `${lines.join('\n')}\n`);
}

await main();
