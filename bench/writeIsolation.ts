/**
 * Reads and health checks while writes are held up (issue "Storage, part 1"), for one or two
 * builds side by side: `node --import tsx bench/writeIsolation.ts [A_DIR] B_DIR` (directories as
 * for versus.ts; default B = this checkout). Over a fresh copy of the bulk store each time, for
 * SECONDS (default 10):
 * - `puts`: 8 connections send bulk PUTs of 200 items without pause;
 * - `lock`: another process (holdWriteLock.ts) holds the write lock for the whole run, while the
 *   same 8 connections send PUTs that wait for it (and get 503 after the busy timeout).
 * Meanwhile one connection asks `GET /healthz` and one `GET /v1/reporting?limit=100` at random
 * offsets, 50 times a second each: their p50, p99 and max are what the table shows, with the
 * PUTs' statuses and the server's CPU time. Writes bench/results/write-isolation-<time>.md.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import type autocannon from 'autocannon';
import { bulkBodies } from './bulkStore.js';
import { benchConfig } from './config.js';
import { timedRun } from './load.js';
import { rotatingBodies } from './scenarios.js';
import { startServerProcess } from './serverProcess.js';
import { percentile } from './stats.js';
import { prepareBulkRunStore } from './stores.js';

const builds = process.argv.slice(2);
if (builds.length === 0) builds.push('.');
const config = benchConfig();
const seconds = Number(process.env.SECONDS_PER_RUN ?? 10);
const PROBE_RATE = 50;

interface Probe {
  p50: number;
  p99: number;
  max: number;
  count: number;
  non2xx: number;
}

/** Another process takes the write lock; resolves once it holds it, with the end of that process. */
async function holdLock(dbPath: string, ms: number): Promise<{ released: Promise<unknown> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/holdWriteLock.ts', dbPath, String(ms)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const released = once(child, 'exit');
  await once(createInterface({ input: child.stdout }), 'line');
  return { released };
}

function probe(run: { result: autocannon.Result; latencies: Float64Array }): Probe {
  const ms = (p: number) => Math.round(percentile(run.latencies, p) * 100) / 100;
  return { p50: ms(50), p99: ms(99), max: run.latencies.at(-1) ?? NaN, count: run.latencies.length, non2xx: run.result.non2xx };
}

async function measure(dir: string, situation: 'puts' | 'lock') {
  const store = await prepareBulkRunStore(config);
  const server = await startServerProcess(store.dbPath, { bin: `${dir}/bin/compdata.js`, serveArgs: ['--max-concurrent', '256'] });
  try {
    const headers = { 'X-API-Key': store.key };
    const bodies = bulkBodies(64, config.bulkItems, store.users);
    const lock = situation === 'lock' ? await holdLock(store.dbPath, seconds * 1000 + 500) : undefined;
    const cpuBefore = server.cpuSeconds();
    let random = 11;
    const records = store.users * 12;
    const [puts, health, page] = await Promise.all([
      timedRun({ url: server.url, connections: 8, duration: seconds, headers, ...rotatingBodies(bodies) }),
      timedRun({ url: server.url, connections: 1, duration: seconds, overallRate: PROBE_RATE, requests: [{ method: 'GET', path: '/healthz' }] }),
      timedRun({
        url: server.url,
        connections: 1,
        duration: seconds,
        overallRate: PROBE_RATE,
        headers,
        requests: [
          {
            method: 'GET',
            setupRequest: (request) => {
              random = (random * 1103515245 + 12345) % 2147483648;
              return { ...request, path: `/v1/reporting?limit=100&offset=${random % (records - 100)}` };
            },
          },
        ],
      }),
    ]);
    const cpuMs = (server.cpuSeconds() - cpuBefore) * 1000;
    await lock?.released;
    const statuses = Object.entries(puts.result.statusCodeStats ?? {}).map(([status, { count }]) => `${count} × ${status}`).join(', ');
    return { health: probe(health), page: probe(page), puts: `${statuses || 'none'} (p50 ${probe(puts).p50} ms)`, cpuMs };
  } finally {
    await server.stop();
  }
}

const lines = [
  '| build | situation | /healthz p50 / p99 / max ms | limit=100 page p50 / p99 / max ms | PUTs answered | server CPU s |',
  '|---|---|---|---|---|---:|',
];
for (const situation of ['puts', 'lock'] as const) {
  for (const [round, dir] of [...builds, ...[...builds].reverse()].entries()) {
    const { health, page, puts, cpuMs } = await measure(dir, situation);
    const cells = (p: Probe) => `${p.p50} / ${p.p99} / ${p.max.toFixed(1)}${p.non2xx ? ` (${p.non2xx} non-2xx)` : ''}`;
    lines.push(`| ${dir} (run ${round + 1}) | ${situation} | ${cells(health)} | ${cells(page)} | ${puts} | ${(cpuMs / 1000).toFixed(1)} |`);
    console.log(lines.at(-1));
  }
}
lines.push('', `${seconds} s per run, probes at ${PROBE_RATE}/s each, 8 PUT connections, ${config.attributions} attributions; load average at the end ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
mkdirSync(config.resultsDir, { recursive: true });
const file = `${config.resultsDir}/write-isolation-${new Date().toISOString().replace(/[:.]/g, '-')}.md`;
writeFileSync(file, `${lines.join('\n')}\n`);
console.log(`\n${lines.join('\n')}\n\nwritten to ${file}`);
