/**
 * PostgreSQL alone against a Citus coordinator with two workers, on one machine: `node --import
 * tsx bench/citus.ts` (after `npm run build`; Debian's PostgreSQL 15 with Citus 13 installed into
 * it). Starts both (test/support/debianServers.ts, citusCluster.ts: 4 shards per table), seeds on
 * each a tenant of BENCH_RECORDS (10,000) records and 8 small tenants, then measures with
 * `compdata serve` as a process of its own, BENCH_SECONDS (8) per run, 8 connections:
 *
 * 1. pages of the big tenant (`limit=2000` and `limit=100`, random offsets);
 * 2. bulk PUTs of 50 group attributions into the 8 small tenants in parallel (each connection's
 *    requests go round the tenants' keys).
 *
 * For each: requests a second, p50/p99, and the CPU time per request of compdata and of each
 * database server (postmaster and backends), so how the work split between the nodes. Everything
 * shares the machine's cores: compare CPU per request, not throughput. Writes a markdown report
 * to bench/results/.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import { cpuSecondsWithReaped, startServerProcess } from './serverProcess.js';
import { citusMissing, startCitusCluster } from '../test/support/citusCluster.js';
import { queryOn, startPostgres } from '../test/support/debianServers.js';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 10_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 8;
const TENANTS = 8;

const missing = citusMissing();
if (missing) {
  process.stderr.write(`bench/citus.ts needs Debian's PostgreSQL 15 with Citus: ${missing}\n`);
  process.exit(2);
}

const lines: string[] = [];
const say = (line = '') => {
  lines.push(line);
  process.stdout.write(`${line}\n`);
};
const cli = (args: string[]) => {
  const result = spawnSync(process.execPath, ['bin/compdata.js', ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`compdata ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim().split('\n').at(-1)!;
};
const single = await startPostgres();
const cluster = await startCitusCluster(2);
try {
  await queryOn(single.url(), 'CREATE DATABASE compdata');
  await cluster.createDatabase('compdata');
  const setups = [
    { name: 'PostgreSQL', db: single.url('compdata'), nodes: [['server', single]] as const },
    {
      name: 'Citus, coordinator + 2 workers',
      db: cluster.coordinator.url('compdata'),
      nodes: [['coordinator', cluster.coordinator], ['worker-1', cluster.workers[0]!], ['worker-2', cluster.workers[1]!]] as const,
    },
  ];
  say(`# PostgreSQL alone and Citus (a coordinator and 2 workers) on one machine (${new Date().toISOString()})`);
  say();
  say(`\`node --import tsx bench/citus.ts\`: a tenant of ${RECORDS} records and ${TENANTS} small ones, ${CONNECTIONS} connections, ${SECONDS} s per run; Debian PostgreSQL 15, Citus 13.0.5 (4 shards per table), 2 cores shared by every process and autocannon.`);
  say();
  say('| database | load | req/s | p50 ms | p99 ms | compdata CPU ms/req | database CPU ms/req, each server | database CPU ms/req, all |');
  say('|---|---|---|---|---|---|---|---|');
  for (const setup of setups) {
    const started = performance.now();
    cli(['seed', '--db', setup.db, '--tenant', 'big', '--records', String(RECORDS), '--users', '200', '--seed', '1']);
    const bigKey = cli(['keys', 'create', '--db', setup.db, '--tenant', 'big']);
    const keys: string[] = [];
    for (let i = 0; i < TENANTS; i += 1) {
      cli(['seed', '--db', setup.db, '--tenant', `small${i}`, '--records', '100', '--users', '60', '--seed', '1']);
      keys.push(cli(['keys', 'create', '--db', setup.db, '--tenant', `small${i}`]));
    }
    say(`<!-- ${setup.name}: seeded in ${((performance.now() - started) / 1000).toFixed(1)} s -->`);
    const emails = (await queryOn<{ email: string }>(setup.db, `SELECT u.email FROM users u JOIN tenants t ON t.id = u.tenant_id AND t.name = 'small0' ORDER BY u.email LIMIT 50`)).map((row) => row.email);
    const server = await startServerProcess(setup.db, { serveArgs: ['--log-level', 'warn'] });
    try {
      const measure = async (label: string, options: Omit<autocannon.Options, 'url'>) => {
        const dbBefore = setup.nodes.map(([, node]) => cpuSecondsWithReaped(node.pid()!));
        const cpuBefore = server.cpuSeconds();
        const result = await autocannon({ url: server.url, connections: CONNECTIONS, duration: SECONDS, ...options });
        const served = result.requests.total;
        const perRequest = (seconds: number) => ((seconds * 1000) / served).toFixed(2);
        const db = setup.nodes.map(([, node], i) => cpuSecondsWithReaped(node.pid()!) - dbBefore[i]!);
        const each = setup.nodes.map(([name], i) => `${name} ${perRequest(db[i]!)}`).join(', ');
        say(`| ${setup.name} | ${label} (load ${loadavg()[0]!.toFixed(1)}) | ${result.requests.average.toFixed(0)} | ${result.latency.p50} | ${result.latency.p99} | ${perRequest(server.cpuSeconds() - cpuBefore)} | ${each} | ${perRequest(db.reduce((a, b) => a + b, 0))} |` + (result.non2xx ? ` (non-2xx: ${result.non2xx})` : ''));
      };
      for (const limit of [2000, 100]) {
        const maxOffset = Math.max(0, RECORDS - limit);
        await measure(`pages, limit=${limit}`, {
          headers: { 'X-API-Key': bigKey },
          requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, path: `/v1/reporting?limit=${limit}&offset=${Math.floor(Math.random() * maxOffset)}` }) }],
        });
      }
      let n = 0;
      await measure(`bulk PUTs of 50, ${TENANTS} tenants in parallel`, {
        method: 'PUT',
        requests: [
          {
            setupRequest: (request: autocannon.Request) => {
              n += 1;
              const data = emails.map((email, i) => ({ user: email, group_dimension: 'region', group: `G${(n + i) % 5}`, start_date: '2026-02' }));
              return { ...request, path: '/v1/users/groups/bulk', headers: { 'X-API-Key': keys[n % TENANTS]!, 'Content-Type': 'application/json' }, body: JSON.stringify({ data }) };
            },
          },
        ],
      });
    } finally {
      await server.stop();
    }
  }
} finally {
  await cluster.remove();
  await single.remove();
}
mkdirSync('bench/results', { recursive: true });
const file = `bench/results/citus-${new Date().toISOString().replace(/[:.]/g, '-')}.md`;
writeFileSync(file, `${lines.join('\n')}\n`);
process.stdout.write(`written to ${file}\n`);
