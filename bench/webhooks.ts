/**
 * Webhook delivery (docs/administration.md#delivery) against `compdata serve` as a process (the
 * default `--webhook-poll`, `--webhook-allow-private`), on SQLite and, with `--postgres`, on a
 * PostgreSQL server started for the run (scripts/embeddedPostgres.ts), with a receiver of the
 * bench's own on 127.0.0.1 that answers `204` at once:
 * - for 0, 1 and 100 endpoints of a tenant (one sandbox each, of CHANGES × 8 users: about a
 *   fifth of them have a draft statement to validate first), CHANGES statements sent to
 *   payroll one at a time (`POST /admin/v1/tenants/{name}/statements/status`), each change's
 *   calls awaited before the next: the time from the change's request to each receiver answer
 *   (p50, p99, max), the change's own latency (p50, p99), and the server's CPU per change with
 *   the delivery of its calls (from /proc/<pid>/stat; on PostgreSQL the postmaster's too).
 *
 * With 100 endpoints or more, WIDE_CHANGES changes (each one writes 100 calls).
 *
 *   node --import tsx bench/webhooks.ts [--postgres] [--changes 100] [--wide-changes 20] [--endpoints 0,1,100] [--out FILE]
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startCluster } from '../scripts/embeddedPostgres.js';
import { startServerProcess } from './serverProcess.js';
import { percentile } from './stats.js';

const { values: args } = parseArgs({
  options: {
    postgres: { type: 'boolean', default: false },
    changes: { type: 'string', default: '100' },
    'wide-changes': { type: 'string', default: '20' },
    endpoints: { type: 'string', default: '0,1,100' },
    out: { type: 'string' },
  },
});
const CHANGES = Number(args.changes);
/** Changes with 100 endpoints or more (each one 100 calls). */
const WIDE_CHANGES = Number(args['wide-changes']);
const ENDPOINT_COUNTS = args.endpoints.split(',').map(Number);
const TOKEN = 'bench-admin-token-0123456789abcdef';

const work = mkdtempSync(join(tmpdir(), 'compdata-webhooks-'));
writeFileSync(join(work, 'admin.token'), TOKEN);
const cluster = args.postgres ? await startCluster() : undefined;
/** The postmaster's process id: the parent of a backend's (field 4 of /proc/<pid>/stat), whose CPU is counted as the server's. */
let postmaster: number | undefined;
if (cluster) {
  const pg = await import('pg');
  const client = new pg.default.Client({ connectionString: cluster.adminUrl });
  await client.connect();
  await client.query('CREATE DATABASE webhooks_bench');
  const backend = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  const stat = readFileSync(`/proc/${backend}/stat`, 'utf8');
  postmaster = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  await client.end();
}
const db = cluster ? cluster.adminUrl.replace(/\/postgres$/, '/webhooks_bench') : join(work, 'bench.db');
// `serve` wants a database that exists: a small tenant seeded first, unused.
execFileSync(process.execPath, ['bin/compdata.js', 'seed', '--db', db, '--tenant', 'first', '--users', '10', '--records', '100', '--seed', 'bench']);
const server = await startServerProcess(db, {
  serveArgs: ['--admin-token-file', join(work, 'admin.token'), '--webhook-allow-private', '--log-level', 'error'],
  ...(postmaster !== undefined && { databasePid: postmaster }),
});

/** The receiver: when each call's answer went, by tenant (`?t=`) and statement id; the calls `waiting` counts resolve `done`. */
const answered = new Map<string, number[]>();
let waiting: { count: number; done: () => void } | undefined;
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    response.writeHead(204).end();
    const at = performance.now();
    const statement = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { statement: { id: string } } }).data.statement.id;
    const key = `${new URL(request.url ?? '', 'http://receiver').searchParams.get('t') ?? ''} ${statement}`;
    answered.set(key, [...(answered.get(key) ?? []), at]);
    if (waiting && (waiting.count -= 1) === 0) waiting.done();
  });
});
receiver.listen(0, '127.0.0.1');
await once(receiver, 'listening');
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

type Answer = { status: number; ms: number; body: unknown };
async function call(method: string, path: string, json?: unknown): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(json !== undefined && { 'content-type': 'application/json' }) },
    ...(json !== undefined && { body: JSON.stringify(json) }),
  });
  const text = await response.text();
  return { status: response.status, ms: performance.now() - started, body: text ? (JSON.parse(text) as unknown) : undefined };
}
const must = (answer: Answer, status: number, what: string) => {
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer;
};

const lines: string[] = [];
const say = (line: string) => {
  lines.push(line);
  process.stdout.write(`${line}\n`);
};
const ms = (value: number) => `${value.toFixed(1)} ms`;
try {
  say(`engine: ${args.postgres ? 'PostgreSQL' : 'SQLite'}; changes of one statement each, one at a time; load average before: ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
  say('');
  say('| endpoints | changes | calls | change → receiver answer p50 / p99 / max | the change\'s request p50 / p99 | server CPU per change (its calls delivered) |');
  say('|---|---|---|---|---|---|');
  for (const endpoints of ENDPOINT_COUNTS) await measure(endpoints);
  say('');
  say(`load average after: ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
} finally {
  await server.stop();
  receiver.close();
  await cluster?.stop();
  rmSync(work, { recursive: true, force: true });
}
if (args.out) writeFileSync(args.out, `${lines.join('\n')}\n`);

/** A sandbox with `endpoints` endpoints; CHANGES statements sent to payroll one at a time. */
async function measure(endpoints: number): Promise<void> {
  const name = `hooks-${endpoints}`;
  const changes = endpoints >= 100 ? WIDE_CHANGES : CHANGES;
  must(await call('POST', '/admin/v1/sandboxes', { name, users: changes * 8, records: changes * 80, seed: 'bench' }), 201, 'sandbox');
  for (let i = 0; i < endpoints; i += 1) must(await call('POST', `/admin/v1/tenants/${name}/webhooks`, { url: `${hookUrl}?t=${name}&e=${i}`, events: ['statement.sent_to_payroll'] }), 201, 'endpoint');
  const validated = must(await call('POST', `/admin/v1/tenants/${name}/statements/status`, { status: 'validated', period: { start_date: '2000-01', end_date: '2099-12' } }), 200, 'validation');
  const statements = ((validated.body as { data: unknown }).data as { id: string; user: string; month: string }[]).slice(0, changes);
  if (statements.length < changes) throw new Error(`only ${statements.length} statements to send to payroll`);
  const toAnswer: number[] = [];
  const requests: number[] = [];
  const cpuBefore = server.cpuSeconds();
  for (const { id, user, month } of statements) {
    const done = new Promise<void>((resolve) => (waiting = { count: endpoints, done: resolve }));
    const started = performance.now();
    const changed = must(await call('POST', `/admin/v1/tenants/${name}/statements/status`, { status: 'sent_to_payroll', statements: [{ user, month }] }), 200, 'change');
    requests.push(changed.ms);
    if (endpoints > 0) await done;
    toAnswer.push(...(answered.get(`${name} ${id}`) ?? []).map((at) => at - started));
  }
  const cpuMs = ((server.cpuSeconds() - cpuBefore) * 1000) / changes;
  const [sortedAnswers, sortedRequests] = [toAnswer.sort((a, b) => a - b), requests.sort((a, b) => a - b)];
  const answers = endpoints === 0 ? '—' : `${ms(percentile(sortedAnswers, 50))} / ${ms(percentile(sortedAnswers, 99))} / ${ms(sortedAnswers.at(-1)!)}`;
  say(`| ${endpoints} | ${changes} | ${toAnswer.length} | ${answers} | ${ms(percentile(sortedRequests, 50))} / ${ms(percentile(sortedRequests, 99))} | ${ms(cpuMs)} |`);
}
