/**
 * `make bench`: the read path of the service under load, measured with autocannon against
 * `compdata serve` running as its own process over a 1,000,000-record database.
 *
 * Scenarios (limit=2000, 8 connections): the first page, a deep page by raw offset (998,000),
 * and the same deep page reached by following `next`. Each runs BENCH_ROUNDS times (default 3)
 * in a rotating order; medians are reported, with the deep/first p50 ratio and the server's
 * peak RSS. Results go to bench/results/ as JSON and markdown.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import autocannon from 'autocannon';
import { startServerProcess } from './serverProcess.js';
import { median, rotated } from './stats.js';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const LIMIT = 2000;
const DEEP_OFFSET = RECORDS - 2000;
const WORK = 'bench/.work';

function compdata(...args: string[]): string {
  return execFileSync(process.execPath, ['bin/compdata.js', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

function prepareDatabase(): { dbPath: string; key: string } {
  mkdirSync(WORK, { recursive: true });
  const dbPath = `${WORK}/bench-${RECORDS}.db`;
  if (!existsSync(dbPath)) {
    const started = Date.now();
    compdata('seed', '--db', dbPath, '--tenant', 'bench', '--records', String(RECORDS), '--seed', '1');
    console.log(`seeded ${RECORDS} records in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const key = compdata('keys', 'create', '--db', dbPath, '--tenant', 'bench').trim().split('\n').at(-1)!;
  return { dbPath, key };
}

interface Sample {
  requestsPerSecond: number;
  recordsPerSecond: number;
  mbPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

async function measure(url: string, key: string): Promise<Sample> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers: { 'X-API-Key': key } });
  const failures = result.errors + result.timeouts + result.non2xx;
  return {
    requestsPerSecond: result.requests.average,
    recordsPerSecond: result.requests.average * LIMIT,
    mbPerSecond: result.throughput.average / 1e6,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: failures,
  };
}

async function nextOf(url: string, key: string): Promise<string> {
  const body = (await (await fetch(url, { headers: { 'X-API-Key': key } })).json()) as { next?: string };
  if (!body.next) throw new Error(`no next on ${url}`);
  return body.next;
}

async function main(): Promise<void> {
  const { dbPath, key } = prepareDatabase();
  const server = await startServerProcess(dbPath);
  const base = `${server.url}/v1/reporting?limit=${LIMIT}`;
  const scenarios: [string, string][] = [
    ['first page (offset 0)', `${base}&offset=0`],
    [`deep page by raw offset (${DEEP_OFFSET})`, `${base}&offset=${DEEP_OFFSET}`],
    [`deep page by next (${DEEP_OFFSET})`, await nextOf(`${base}&offset=${DEEP_OFFSET - LIMIT}`, key)],
  ];
  const samples = new Map<string, Sample[]>(scenarios.map(([name]) => [name, []]));
  const idle = server.memory();
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [name, url] of rotated(scenarios, round)) samples.get(name)!.push(await measure(url, key));
  }
  const memory = server.memory();
  await server.stop();

  const rows = scenarios.map(([name]) => {
    const list = samples.get(name)!;
    const pick = (field: keyof Sample) => median(list.map((sample) => sample[field]));
    return { scenario: name, ...Object.fromEntries((Object.keys(list[0]!) as (keyof Sample)[]).map((f) => [f, pick(f)])) } as { scenario: string } & Sample;
  });
  const ratio = rows[1]!.p50 / rows[0]!.p50;
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  const header = `| scenario | req/s | records/s | MB/s | p50 ms | p99 ms | errors+non2xx |\n|---|---:|---:|---:|---:|---:|---:|`;
  const table = rows
    .map((r) => `| ${r.scenario} | ${r.requestsPerSecond.toFixed(1)} | ${Math.round(r.recordsPerSecond)} | ${r.mbPerSecond.toFixed(1)} | ${r.p50} | ${r.p99} | ${r.errors} |`)
    .join('\n');
  const summary =
    `${header}\n${table}\n\n` +
    `deep/first p50 ratio: ${ratio.toFixed(2)} (target <= 1.2)\n` +
    `server RSS: idle ${idle.peakRssMiB.toFixed(0)} MiB peak before load; peak ${memory.peakRssMiB.toFixed(0)} MiB (VmHWM, counts mmap'd database pages); anonymous ${memory.anonRssMiB.toFixed(0)} MiB at the end\n` +
    `${RECORDS} records, ${CONNECTIONS} connections, ${SECONDS} s x ${ROUNDS} rounds (medians), commit ${commit}, node ${process.version}, ${cpus().length} cores`;
  console.log(`\n${summary}`);
  mkdirSync('bench/results', { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  writeFileSync(`bench/results/read-${stamp}.md`, `${summary}\n`);
  writeFileSync(
    `bench/results/read-${stamp}.json`,
    `${JSON.stringify({ commit, node: process.version, cores: cpus().length, records: RECORDS, connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS, rows, ratio, idle, memory }, null, 2)}\n`,
  );
}

await main();
