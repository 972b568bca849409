/**
 * Read replicas on one machine: `node --import tsx bench/replicas.ts` (after `npm run build`).
 * Starts a Debian PostgreSQL 15 primary and two streaming standbys (test/support/debianServers.ts),
 * seeds BENCH_RECORDS (20,000) records, then measures, with `compdata serve` as a process of its own:
 *
 * 1. pages (`limit=2000` and `limit=100`, random offsets) against the primary only, primary + 1
 *    replica and primary + 2 replicas, the three alternated over BENCH_ROUNDS (2) rounds of
 *    BENCH_SECONDS (8) each: requests a second, p50/p99, the CPU time per request of compdata and
 *    of each PostgreSQL server, and the share of reads each server took (from `/metrics`);
 * 2. a write followed by a read with its token, BENCH_PAIRS (300) times in turn, with 2 replicas:
 *    p50/p99 of the read and of the pair, and which server served the reads;
 * 3. the replicas' lag (`/healthz`, sampled every 50 ms) during 10 s of bulk PUTs.
 *
 * The replicas share the machine's cores with the primary, compdata and autocannon: compare CPU
 * per request and the shares, not throughput alone. Writes a markdown report to bench/results/.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { cpuSecondsWithReaped, startServerProcess, type ServerProcess } from './serverProcess.js';
import { median, percentile } from './stats.js';
import { debianServersMissing, queryOn, startReplicatedCluster } from '../test/support/debianServers.js';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 20_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 300);
const CONNECTIONS = 8;

const missing = debianServersMissing();
if (missing) {
  process.stderr.write(`bench/replicas.ts needs Debian's PostgreSQL 15: ${missing}\n`);
  process.exit(2);
}

const cluster = await startReplicatedCluster(2);
const lines: string[] = [];
const say = (line = '') => {
  lines.push(line);
  process.stdout.write(`${line}\n`);
};
try {
  await queryOn(cluster.primary.url(), 'CREATE DATABASE compdata');
  const db = cluster.primary.url('compdata');
  const cli = (args: string[]) => {
    const result = spawnSync(process.execPath, ['bin/compdata.js', ...args], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`compdata ${args.join(' ')}: ${result.stderr}`);
    return result.stdout.trim().split('\n').at(-1)!;
  };
  cli(['seed', '--db', db, '--tenant', 'bench', '--records', String(RECORDS), '--users', '200', '--seed', '1']);
  const key = cli(['keys', 'create', '--db', db, '--tenant', 'bench']);
  const emails = (await queryOn<{ email: string }>(db, 'SELECT email FROM users ORDER BY email LIMIT 50')).map((row) => row.email);
  await cluster.caughtUp(60_000);
  const replicaUrls = cluster.replicas.map((replica) => replica.url('compdata'));
  const servers = [cluster.primary, ...cluster.replicas];
  const names = ['primary', 'replica-1', 'replica-2'];
  const databaseCpu = () => servers.map((server) => cpuSecondsWithReaped(server.pid()!));

  const serve = (replicas: number) =>
    startServerProcess(db, { serveArgs: ['--metrics', '--log-level', 'warn', ...replicaUrls.slice(0, replicas).flatMap((url) => ['--db-replica', url])] });
  const readsByServer = async (server: ServerProcess): Promise<number[]> => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    return names.map((name) => Number(new RegExp(`compdata_read_server_reads_total\\{server="${name}"\\} (\\d+)`).exec(text)?.[1] ?? 0));
  };
  /** Waits until the server's replicas are all in rotation (a deadline, not a sleep). */
  const inRotation = async (server: ServerProcess, replicas: number) => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const health = (await (await fetch(`${server.url}/healthz`)).json()) as { read_servers?: { in_rotation: boolean }[] };
      if ((health.read_servers ?? []).filter((entry) => entry.in_rotation).length >= (replicas === 0 ? 0 : replicas + 1)) return;
      if (Date.now() > deadline) throw new Error('replicas not in rotation');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  say(`# Read replicas on one machine (${new Date().toISOString()})`);
  say();
  say(`\`node --import tsx bench/replicas.ts\`: ${RECORDS} records, ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds alternated; Debian PostgreSQL 15, 2 cores shared by everything.`);
  say();
  say('## 1. Pages');
  say();
  say('| limit | read servers | req/s | p50 ms | p99 ms | compdata CPU ms/req | primary CPU ms/req | replica-1 CPU ms/req | replica-2 CPU ms/req | share of reads (primary / r1 / r2) |');
  say('|---|---|---|---|---|---|---|---|---|---|');
  for (const limit of [2000, 100]) {
    const runs = new Map<number, { rps: number; p50: number; p99: number; cpu: number[]; share: number[] }[]>();
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? [0, 1, 2] : [2, 1, 0];
      for (const replicas of order) {
        const server = await serve(replicas);
        try {
          await inRotation(server, replicas);
          const readsBefore = await readsByServer(server);
          const dbBefore = databaseCpu();
          const cpuBefore = server.cpuSeconds();
          const maxOffset = Math.max(0, RECORDS - limit);
          const result = await autocannon({
            url: server.url,
            connections: CONNECTIONS,
            duration: SECONDS,
            headers: { 'X-API-Key': key },
            requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, path: `/v1/reporting?limit=${limit}&offset=${Math.floor(Math.random() * maxOffset)}` }) }],
          });
          const served = result.requests.total;
          const cpu = [server.cpuSeconds() - cpuBefore, ...databaseCpu().map((after, i) => after - dbBefore[i]!)].map((seconds) => (seconds * 1000) / served);
          const readsAfter = await readsByServer(server);
          const reads = readsAfter.map((after, i) => after - readsBefore[i]!);
          const total = reads.reduce((sum, n) => sum + n, 0) || 1;
          const entry = { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpu, share: reads.map((n) => n / total) };
          runs.set(replicas, [...(runs.get(replicas) ?? []), entry]);
        } finally {
          await server.stop();
        }
      }
    }
    for (const replicas of [0, 1, 2]) {
      const entries = runs.get(replicas)!;
      const med = (pick: (entry: (typeof entries)[number]) => number) => median(entries.map(pick));
      const cpu = [0, 1, 2, 3].map((i) => med((entry) => entry.cpu[i]!).toFixed(2));
      // Without replicas the server keeps no figures of read servers: every read is the primary's.
      const share = replicas === 0 ? '100% / - / -' : [0, 1, 2].map((i) => `${Math.round(med((entry) => entry.share[i]!) * 100)}%`).join(' / ');
      const label = replicas === 0 ? 'primary only' : `primary + ${replicas} replica${replicas > 1 ? 's' : ''}`;
      say(`| ${limit} | ${label} | ${med((e) => e.rps).toFixed(0)} | ${med((e) => e.p50)} | ${med((e) => e.p99)} | ${cpu.join(' | ')} | ${share} |`);
    }
  }

  const server = await serve(2);
  try {
    await inRotation(server, 2);
    say();
    say(`## 2. A write, then a read with its token (${PAIRS} pairs in turn, 2 replicas)`);
    say();
    const readTimes: number[] = [];
    const pairTimes: number[] = [];
    const servedBy = new Map<string, number>();
    for (let i = 0; i < PAIRS; i += 1) {
      const started = performance.now();
      const written = await fetch(`${server.url}/v1/users/groups/bulk`, {
        method: 'PUT',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ data: [{ user: emails[0]!, group_dimension: 'region', group: `G${i % 7}`, start_date: '2026-01' }] }),
      });
      const token = written.headers.get('compdata-consistency');
      await written.arrayBuffer();
      if (!written.ok || token === null) throw new Error(`write ${i}: ${written.status}`);
      const readStarted = performance.now();
      const read = await fetch(`${server.url}/v1/users/groups?user=${encodeURIComponent(emails[0]!)}`, { headers: { 'X-API-Key': key, 'Compdata-Consistency': token } });
      await read.arrayBuffer();
      const ended = performance.now();
      readTimes.push(ended - readStarted);
      pairTimes.push(ended - started);
      const by = (read.headers.get('compdata-served-by') ?? 'none').split(';')[0]!;
      servedBy.set(by, (servedBy.get(by) ?? 0) + 1);
    }
    readTimes.sort((a, b) => a - b);
    pairTimes.sort((a, b) => a - b);
    say(`read with the token: p50 ${percentile(readTimes, 50).toFixed(1)} ms, p99 ${percentile(readTimes, 99).toFixed(1)} ms; write + read: p50 ${percentile(pairTimes, 50).toFixed(1)} ms, p99 ${percentile(pairTimes, 99).toFixed(1)} ms`);
    say(`served by: ${[...servedBy].map(([name, n]) => `${name} ${n}`).join(', ')}`);

    say();
    say('## 3. Replica lag during bulk PUTs (10 s, 4 connections, /healthz every 50 ms)');
    say();
    const lags: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const health = (await (await fetch(`${server.url}/healthz`)).json()) as { read_servers: { name: string; lag_ms?: number }[] };
        for (const entry of health.read_servers) if (entry.name !== 'primary' && entry.lag_ms !== undefined) lags.push(entry.lag_ms);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const items = emails.map((email, i) => ({ user: email, group_dimension: 'region', group: `L${i % 5}`, start_date: '2026-02' }));
    const load = await autocannon({
      url: `${server.url}/v1/users/groups/bulk`,
      method: 'PUT',
      connections: 4,
      duration: 10,
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ data: items }),
    });
    sampling = false;
    await sampler;
    lags.sort((a, b) => a - b);
    say(`${load.requests.total} PUTs of 50 items (${load.requests.average.toFixed(0)}/s, non-2xx ${load.non2xx}); lag samples ${lags.length}: p50 ${percentile(lags, 50)} ms, p99 ${percentile(lags, 99)} ms, max ${lags.at(-1)} ms (resolution: the 250 ms check)`);
  } finally {
    await server.stop();
  }
} finally {
  await cluster.remove();
}
mkdirSync('bench/results', { recursive: true });
const file = `bench/results/replicas-${new Date().toISOString().replace(/[:.]/g, '-')}.md`;
writeFileSync(file, `${lines.join('\n')}\n`);
process.stdout.write(`written to ${file}\n`);
