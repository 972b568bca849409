/**
 * `node --import tsx bench/bulk.ts`: PUT /v1/users/groups/bulk under load, measured with
 * autocannon against `compdata serve` (compiled: run `npm run build` first) in its own process,
 * over a store of about 1,000,000 attributions (see bulkStore.ts). Each request carries 200
 * mixed items that trim, split and delete stored periods and re-render reporting months;
 * bodies rotate through a pool. Every scenario starts from a fresh copy of the store.
 * Prints requests/s and latency p50/p99 per scenario and writes them to bench/results/.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import autocannon from 'autocannon';
import { attributionCount, bulkBodies, prepareBulkStore } from './bulkStore.js';
import { startServerProcess } from './serverProcess.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ITEMS = 200;
const BODIES = 64;
const RUN_DB = 'bench/.work/bulk-run.db';

interface Row {
  scenario: string;
  requests: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  failures: number;
}

async function measure(scenario: string, source: string, key: string, connections: number): Promise<Row> {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${RUN_DB}${suffix}`, { force: true });
  copyFileSync(source, RUN_DB);
  const server = await startServerProcess(RUN_DB);
  const bodies = bulkBodies(BODIES, ITEMS);
  let sent = 0;
  try {
    const result = await autocannon({
      url: `${server.url}/v1/users/groups/bulk`,
      connections,
      duration: SECONDS,
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      requests: [{ method: 'PUT', setupRequest: (request) => ({ ...request, body: bodies[sent++ % BODIES] }) }],
    });
    return {
      scenario,
      requests: result.requests.total,
      requestsPerSecond: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      failures: result.errors + result.timeouts + result.non2xx,
    };
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const { dbPath, key } = prepareBulkStore();
  const rows = [
    await measure('1 connection (requests one after another)', dbPath, key, 1),
    await measure('8 connections (requests queue for the write lock)', dbPath, key, 8),
  ];
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  const table = rows
    .map((r) => `| ${r.scenario} | ${r.requests} | ${r.requestsPerSecond.toFixed(1)} | ${r.p50} | ${r.p99} | ${r.failures} |`)
    .join('\n');
  const summary =
    `| scenario | requests | req/s | p50 ms | p99 ms | errors+non2xx |\n|---|---:|---:|---:|---:|---:|\n${table}\n\n` +
    `PUT of ${ITEMS} mixed items (${BODIES} bodies in rotation), store of ${attributionCount()} attributions, ` +
    `${SECONDS} s per scenario, commit ${commit}, node ${process.version}, ${cpus().length} cores (target: p99 < 25 ms)`;
  console.log(`\n${summary}`);
  mkdirSync('bench/results', { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  writeFileSync(`bench/results/bulk-${stamp}.md`, `${summary}\n`);
}

await main();
