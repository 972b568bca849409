/**
 * Sandboxes of the administration API (docs/administration.md#sandboxes), against `compdata
 * serve` as a process, on SQLite and, with `--postgres`, on a PostgreSQL server started for the
 * run (scripts/embeddedPostgres.ts):
 * - a copy of a template of RECORDS records (`POST /admin/v1/sandboxes` with `template`), from
 *   request to answer, its reset (`POST /admin/v1/tenants/{name}/reset`) and its deletion:
 *   median and p95 over RUNS runs; beside them a sandbox generated as `compdata seed` makes one of the same size;
 * - with `--loop SECONDS`: 8 clients creating a copy of a template of 1,000 records, reading a
 *   few pages, writing once and deleting it, again and again, while another tenant's
 *   `limit=100` pages are timed (p99 idle, then under that load); any 5xx counted.
 *
 *   node --import tsx bench/sandboxes.ts [--postgres] [--runs 20] [--records 10000] [--loop 60]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startCluster } from '../scripts/embeddedPostgres.js';
import { startServerProcess } from './serverProcess.js';
import { median, percentile } from './stats.js';

const { values: args } = parseArgs({
  options: {
    postgres: { type: 'boolean', default: false },
    runs: { type: 'string', default: '20' },
    records: { type: 'string', default: '10000' },
    loop: { type: 'string', default: '0' },
    clients: { type: 'string', default: '8' },
    out: { type: 'string' },
  },
});
const RUNS = Number(args.runs);
const RECORDS = Number(args.records);
const LOOP_SECONDS = Number(args.loop);
const CLIENTS = Number(args.clients);
const TOKEN = 'bench-admin-token-0123456789abcdef';

const work = mkdtempSync(join(tmpdir(), 'compdata-sandboxes-'));
writeFileSync(join(work, 'admin.token'), TOKEN);
const cluster = args.postgres ? await startCluster() : undefined;
if (cluster) {
  const pg = await import('pg');
  const client = new pg.default.Client({ connectionString: cluster.adminUrl });
  await client.connect();
  await client.query('CREATE DATABASE sandboxes_bench');
  await client.end();
}
const db = cluster ? cluster.adminUrl.replace(/\/postgres$/, '/sandboxes_bench') : join(work, 'bench.db');
const users = Math.max(10, Math.round(RECORDS / 50));
// The template, made by `compdata seed` as a process (its time is the seed's, reported beside).
const seedStarted = performance.now();
execFileSync(process.execPath, ['bin/compdata.js', 'seed', '--db', db, '--tenant', 'template', '--users', String(users), '--records', String(RECORDS), '--seed', 'bench']);
const seedMs = performance.now() - seedStarted;
const server = await startServerProcess(db, { serveArgs: ['--admin-token-file', join(work, 'admin.token'), '--log-level', 'error'] });

type Answer = { status: number; ms: number; body: unknown };
async function call(method: string, path: string, options: { json?: unknown; key?: string } = {}): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(server.url + path, {
    method,
    headers: {
      // A tenant's key goes in X-API-Key (the public API); the admin token as a bearer.
      ...(options.key === undefined ? { authorization: `Bearer ${TOKEN}` } : { 'x-api-key': options.key }),
      ...(options.json !== undefined && { 'content-type': 'application/json' }),
    },
    ...(options.json !== undefined && { body: JSON.stringify(options.json) }),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  return { status: response.status, ms, body: text && response.headers.get('content-type')?.includes('json') ? (JSON.parse(text) as unknown) : text };
}
async function sandbox(json: Record<string, unknown>): Promise<{ name: string; key: string; ms: number }> {
  const made = await call('POST', '/admin/v1/sandboxes', { json });
  if (made.status !== 201) throw new Error(`create ${JSON.stringify(json)}: ${made.status} ${JSON.stringify(made.body)}`);
  const body = made.body as { tenant: { name: string }; key: { key: string } };
  return { name: body.tenant.name, key: body.key.key, ms: made.ms };
}
const summary = (list: number[]) => {
  const sorted = [...list].sort((a, b) => a - b);
  return `median ${median(sorted).toFixed(1)} ms, p95 ${percentile(sorted, 95).toFixed(1)} ms`;
};

const lines: string[] = [];
const say = (line: string) => {
  lines.push(line);
  process.stdout.write(`${line}\n`);
};
try {
  const creates: number[] = [];
  const resets: number[] = [];
  const seeds: number[] = [];
  const deletes: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const copy = await sandbox({ name: `copy-${run}`, template: 'template' });
    creates.push(copy.ms);
    const reset = await call('POST', `/admin/v1/tenants/copy-${run}/reset`);
    if (reset.status !== 204) throw new Error(`reset: ${reset.status} ${JSON.stringify(reset.body)}`);
    resets.push(reset.ms);
    seeds.push((await sandbox({ name: `seeded-${run}`, users, records: RECORDS, seed: 'bench' })).ms);
    const deletion = await call('DELETE', `/admin/v1/tenants/copy-${run}`);
    if (deletion.status !== 204) throw new Error(`delete: ${deletion.status} ${JSON.stringify(deletion.body)}`);
    deletes.push(deletion.ms);
    await call('DELETE', `/admin/v1/tenants/seeded-${run}`);
  }
  say(`engine: ${args.postgres ? 'PostgreSQL' : 'SQLite'}; template: ${RECORDS} records, ${users} users; ${RUNS} runs`);
  say(`- copy (POST /admin/v1/sandboxes with template): ${summary(creates)}`);
  say(`- reset of that copy: ${summary(resets)}`);
  say(`- deletion of that copy (DELETE /admin/v1/tenants/{name}): ${summary(deletes)}`);
  say(`- generated sandbox of the same size (as compdata seed): ${summary(seeds)}`);
  say(`- compdata seed of the template as a process (once, start of node included): ${seedMs.toFixed(0)} ms`);
  if (LOOP_SECONDS > 0) await loop();
} finally {
  await server.stop();
  await cluster?.stop();
  rmSync(work, { recursive: true, force: true });
}
if (args.out) writeFileSync(args.out, `${lines.join('\n')}\n`);

/** The 8-client loop beside another tenant's pages, those pages timed idle first. */
async function loop(): Promise<void> {
  await sandbox({ name: 'small', users: 20, records: 1000, seed: 'small' });
  const reader = await sandbox({ name: 'reader', users: 200, records: 10000, seed: 'reader' });
  const pages = async (until: number) => {
    const times: number[] = [];
    let offset = 0;
    while (performance.now() < until) {
      const page = await call('GET', `/v1/reporting?limit=100&offset=${offset}`, { key: reader.key });
      if (page.status !== 200) throw new Error(`page: ${page.status}`);
      times.push(page.ms);
      offset = (offset + 100) % 10000;
    }
    return times.sort((a, b) => a - b);
  };
  const idle = await pages(performance.now() + 10_000);
  const statuses = new Map<number, number>();
  let cycles = 0;
  const until = performance.now() + LOOP_SECONDS * 1000;
  const count = (answer: Answer) => statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  const client = async (n: number) => {
    for (let i = 0; performance.now() < until; i += 1) {
      const made = await call('POST', '/admin/v1/sandboxes', { json: { name: `loop-${n}-${i}`, template: 'small' } });
      count(made);
      if (made.status !== 201) continue;
      const key = (made.body as { key: { key: string } }).key.key;
      for (const offset of [0, 100, 200]) count(await call('GET', `/v1/reporting?limit=100&offset=${offset}`, { key }));
      count(await call('PUT', '/v1/users/bulk', { key, json: { data: [{ id: `bench-${i}`, email: `bench-${i}@example.com`, name: 'Bench', role: 'AE', currency: 'EUR', calculation_currency: 'EUR', country: 'FR', code: 'B' }] } }));
      count(await call('DELETE', `/admin/v1/tenants/loop-${n}-${i}`));
      cycles += 1;
    }
  };
  const [busy] = await Promise.all([pages(until), ...Array.from({ length: CLIENTS }, (_, n) => client(n))]);
  const errors = [...statuses].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
  say(`- ${CLIENTS} clients for ${LOOP_SECONDS} s, each cycle a copy of 1,000 records, 3 pages, a write and a delete: ${cycles} cycles;` +
    ` statuses ${JSON.stringify(Object.fromEntries(statuses))}; 5xx: ${errors}`);
  say(`- another tenant's limit=100 pages, one client: p99 idle ${percentile(idle, 99).toFixed(1)} ms (${idle.length} pages),` +
    ` under the loop ${percentile(busy, 99).toFixed(1)} ms (${busy.length} pages): ${(percentile(busy, 99) / percentile(idle, 99)).toFixed(2)}x`);
}
