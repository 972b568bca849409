/**
 * The writes of the hosted v1 API against a `compdata serve` process on SQLite, measured with
 * autocannon (CPU per request read from /proc, as bench/load.ts does):
 * - `PUT /v1/users/bulk` of 200 users, as stored (nothing changes) and renamed (on SQLite each
 *   rewrites every record of its users; on PostgreSQL their user-month rows): p50/p99 and the
 *   server's CPU per request, each run drained before the next;
 * - a push of ROWS table records (`POST /v1/tables/deals/records/bulk`): time from the POST to
 *   the import's `finished`, and the p99 of `GET /v1/reporting?limit=100` while the import runs
 *   against its p99 idle.
 * Prints a Markdown report (the load average with it: the machine may be shared) and writes it
 * to bench/results/ingest-<engine>-<time>.md.
 *
 * With `BENCH_POSTGRES` set to a PostgreSQL server's URL (its `postgres` database, as a user who
 * may create databases), the same runs go to a fresh database on that server, and the server CPU
 * counts the PostgreSQL server's too: the postmaster of `BENCH_POSTGRES_DATA` (default
 * `bench/.work/postgres/data`) with its children, so run nothing else on it.
 *
 *   node --import tsx bench/ingest.ts [ROWS] [SECONDS]
 *   BENCH_POSTGRES=postgres://postgres@127.0.0.1:54330/postgres node --import tsx bench/ingest.ts [ROWS] [SECONDS]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { runScenario, type Sample, type Target } from './load.js';
import type { Scenario } from './scenarios.js';
import { postmasterPid, startServerProcess } from './serverProcess.js';

const rows = Number(process.argv[2] ?? 100_000);
const seconds = Number(process.argv[3] ?? 10);
const POSTGRES = process.env.BENCH_POSTGRES;
const directory = mkdtempSync(join(tmpdir(), 'compdata-bench-ingest-'));
const database = POSTGRES ? await newPostgresDatabase(POSTGRES) : { url: join(directory, 'bench.db'), drop: async () => {} };
const cli = (...args: string[]) => execFileSync(process.execPath, ['bin/compdata.js', ...args], { encoding: 'utf8' });
cli('seed', '--db', database.url, '--tenant', 'demo', '--records', '50000');
const key = cli('keys', 'create', '--db', database.url, '--tenant', 'demo').trimEnd().split('\n').at(-1)!;
const [emails, owners] = await firstUsers(database.url);

const server = await startServerProcess(database.url, {
  serveArgs: ['--log-level', 'warn', '--idle-timeout', '120000', '--request-timeout', '120000'],
  ...(POSTGRES && { databasePid: postmasterPid(process.env.BENCH_POSTGRES_DATA ?? 'bench/.work/postgres/data') }),
});
const target: Target = { server, key };
const scenario = (title: string, connections: number, request: () => Record<string, unknown>): Scenario =>
  ({ kind: 'read', title, connections, server: 'read', recordsPerRequest: 0, requests: request }) as unknown as Scenario;
let round = 0;
/** 200 users as they are stored (a nightly roster sync: nothing changes), or all renamed (see above). */
const usersBulk = (rename: boolean) =>
  scenario(`users bulk of 200${rename ? ', renamed' : ''}`, 4, () => ({
    requests: [
      {
        method: 'PUT',
        path: '/v1/users/bulk',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        setupRequest: (request: Record<string, unknown>) => ({
          ...request,
          body: JSON.stringify({ data: emails.map((email, i) => ({ email, ...(rename && { name: `Bench ${(round += 1)} ${i}` }) })) }),
        }),
      },
    ],
  }));
/**
 * Waits until the writes a run left behind are done: autocannon stops sending at its deadline,
 * but the requests it sent last are still queued for the writer, and would run into the next run.
 * A write sent now is answered after them (the writer takes writes in order).
 */
async function drained(): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const answer = await fetch(`${server.url}/v1/users/bulk`, {
      method: 'PUT',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ data: [{ email: emails[0] }] }),
    });
    const text = await answer.text();
    if (answer.status === 200) return;
    // On PostgreSQL a write that waited past the busy timeout for the tenant's lock is a 503: try again.
    if (answer.status !== 503 || Date.now() > deadline) throw new Error(`the drain write answered ${answer.status}: ${text}`);
    await new Promise((resolve) => setTimeout(resolve, 1000 * Number(answer.headers.get('retry-after') ?? 1)));
  }
}
const reporting = scenario('GET /v1/reporting?limit=100', 4, () => ({
  requests: [{ method: 'GET', path: '/v1/reporting?limit=100', headers: { 'X-API-Key': key } }],
}));

/** A database of its own on the PostgreSQL server at `url`, dropped at the end. */
async function newPostgresDatabase(url: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `compdata_bench_ingest_${process.pid}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const own = new URL(url);
  own.pathname = `/${name}`;
  return { url: own.toString(), drop: () => admin(`DROP DATABASE ${name} WITH (FORCE)`) };
}

/** The e-mails of the first 200 users and the ids of the first 50 (the records' owners), in key order. */
async function firstUsers(location: string): Promise<[string[], string[]]> {
  const emails = 'SELECT email FROM users ORDER BY pk LIMIT 200';
  const ids = 'SELECT id FROM users ORDER BY pk LIMIT 50';
  if (!POSTGRES) {
    const db = new Database(location, { readonly: true });
    try {
      return [db.prepare<[], string>(emails).pluck().all(), db.prepare<[], string>(ids).pluck().all()];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: location });
  await client.connect();
  try {
    const column = async (sql: string) => (await client.query<Record<string, string>>(sql)).rows.map((row) => Object.values(row)[0]!);
    return [await column(emails), await column(ids)];
  } finally {
    await client.end();
  }
}

const line = (name: string, sample: Sample) =>
  `| ${name} | ${sample.requestsPerSecond.toFixed(0)} | ${sample.p50} | ${sample.p99} | ${sample.serverCpuMsPerRequest.toFixed(2)} | ${sample.non2xx + sample.errors} |`;
const report: string[] = [];
const load = () => loadavg().map((value) => value.toFixed(2)).join(' ');
try {
  report.push(`# Writes of the hosted v1 API (${POSTGRES ? 'PostgreSQL' : 'SQLite'}), ${new Date().toISOString()}`, '', `Load average before: ${load()}`, '');
  report.push('| run | req/s | p50 ms | p99 ms | server CPU ms/req | non-2xx |', '| --- | --- | --- | --- | --- | --- |');
  report.push(line('PUT /v1/users/bulk, 200 users as stored', await runScenario(usersBulk(false), target, seconds)));
  await drained();
  report.push(line('PUT /v1/users/bulk, 200 users renamed', await runScenario(usersBulk(true), target, seconds)));
  await drained();
  const idle = await runScenario(reporting, target, seconds);
  report.push(line('GET /v1/reporting?limit=100, idle', idle));

  const body = JSON.stringify({
    data: Array.from({ length: rows }, (_, i) => ({
      id: `bench-${i}`,
      name: `Bench deal ${i}`,
      owner_id: owners[i % owners.length],
      close_date: '2026-03-14T10:00:00.000Z',
      product: 'Platform',
      amount: i + 0.5,
      amount_currency: 'USD',
      stage: 'Closed Won',
    })),
  });
  const posted = performance.now();
  const pushed = await fetch(`${server.url}/v1/tables/deals/records/bulk?all=true`, {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
    body,
  });
  const accepted = performance.now() - posted;
  if (pushed.status !== 202) throw new Error(`push answered ${pushed.status}: ${await pushed.text()}`);
  const { import_id: id } = (await pushed.json()) as { import_id: string };
  let finishedAfter: number | undefined;
  const watching = (async () => {
    for (;;) {
      const state = (await (await fetch(`${server.url}/v1/imports/${id}`, { headers: { 'X-API-Key': key } })).json()) as {
        data_import: { status: string; data_tables_details: { error: unknown; number_of_records: number | null }[] };
      };
      if (state.data_import.status === 'finished') {
        finishedAfter = performance.now() - posted;
        return state.data_import.data_tables_details[0];
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const during = await runScenario(reporting, target, Math.max(1, Math.min(seconds, 3)));
  const table = await watching;
  report.push(line(`GET /v1/reporting?limit=100, while the import ran (${finishedAfter! < 3000 ? 'partly' : 'throughout'})`, during));
  report.push(
    '',
    `Push of ${rows} records (${(body.length / 1e6).toFixed(1)} MB): answered 202 after ${accepted.toFixed(0)} ms; import finished ${finishedAfter!.toFixed(0)} ms after the POST ` +
      `(${JSON.stringify(table)}). Reporting p99 during / idle: ${(during.p99 / idle.p99).toFixed(2)}x.`,
    '',
    `Load average after: ${load()}`,
    '',
    `Command: ${POSTGRES ? 'BENCH_POSTGRES=… ' : ''}node --import tsx bench/ingest.ts ${rows} ${seconds}`,
  );
  console.log(report.join('\n'));
  mkdirSync('bench/results', { recursive: true });
  const file = `bench/results/ingest-${POSTGRES ? 'postgres' : 'sqlite'}-${new Date().toISOString().replace(/[:.]/g, '-')}.md`;
  writeFileSync(file, `${report.join('\n')}\n`);
  console.log(`written to ${file}`);
} finally {
  await server.stop();
  await database.drop();
  rmSync(directory, { recursive: true, force: true });
}
