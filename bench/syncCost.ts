/**
 * What incremental sync costs the server (issue 14): over a copy of the read store (1,000,000
 * reporting records by default), a first sync from `changed_since=0` walked to its end through
 * the store, then 1,000 records changed two ways, and the sync of each measured against a
 * `compdata serve` process: its CPU per request (all threads, from /proc) and the wall time of
 * each request (client included), medians of REQUESTS requests.
 * - `import`: 1,000 stored records imported again with a new `payment` (their own rows change);
 * - `bulk PUT`: group attributions that change the dimension fields of about 1,000 records (one
 *   user's months, as many as make 1,000 or just past; the rows of the records are not written).
 *
 *   node --import tsx bench/syncCost.ts [REQUESTS]
 */
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { benchConfig } from './config.js';
import { startServerProcess } from './serverProcess.js';
import { median } from './stats.js';
import { prepareReadStore } from './stores.js';
import { importDataset } from '../src/dataset/datasetImport.js';
import { formatMonth } from '../src/domain/months.js';
import { openStore } from '../src/store/openStore.js';
import type { Principal } from '../src/store/vocabulary/tenancy.js';
import type { Store } from '../src/store/store.js';

const requests = Number(process.argv[2] ?? 200);
const CHANGED = 1_000;
const config = benchConfig();
const read = prepareReadStore(config);
const dbPath = `${config.workDir}/sync-${config.records}.db`;
for (const suffix of ['', '-wal', '-shm']) rmSync(`${dbPath}${suffix}`, { force: true });
copyFileSync(read.dbPath, dbPath);

const store = await openStore(dbPath, { role: 'command' });
const principal = async (): Promise<Principal> => (await store.authenticate(read.key))!;

/** Walks a sync from `since` to its end through the store: records read, pages, wall ms, the sync token. */
async function syncThrough(store: Store, since: string) {
  const started = performance.now();
  let records = 0;
  let pages = 0;
  for (let token = since; ; pages += 1) {
    const page = await store.changes(await principal(), { kind: 'reporting' }, { since: token, limit: 2000 });
    if (typeof page !== 'object') throw new Error(`sync answered ${page}`);
    records += page.count;
    if (page.syncToken !== undefined) return { records, pages: pages + 1, ms: performance.now() - started, token: page.syncToken };
    token = page.next!;
  }
}

const first = await syncThrough(store, '0');
const lines = [`first sync of ${config.records} records from changed_since=0 (in-process, limit=2000): ${first.records} records in ${first.pages} pages, ${(first.ms / 1000).toFixed(1)} s`];
console.log(lines[0]);

// 1,000 records from the middle, imported again with another payment.
const middle = await store.page(await principal(), { kind: 'reporting' }, { offset: BigInt(Math.floor(config.records / 2)), limit: CHANGED });
if (typeof middle !== 'object') throw new Error('no page');
const edited = (JSON.parse(`[${middle.json.toString()}]`) as { payment: number }[]).map((record) => ({ ...record, payment: record.payment + 1 }));
const dataset = JSON.stringify({ format: 'compdata-dataset/1', reporting: edited });
await importDataset(store, 'bench', (async function* () {
  yield dataset;
})());
const afterImport = first.token;
const importSync = await syncThrough(store, afterImport);

// One user's months, as many as hold 1,000 records, given a group of their own.
const db = new Database(dbPath, { readonly: true });
const userMonths = db
  .prepare<[], [string, number, number]>(
    `SELECT u.email, r.month, count(*) FROM reporting_records r JOIN users u ON u.pk = r.user_pk
     WHERE u.pk = (SELECT min(pk) FROM users) GROUP BY r.month ORDER BY r.month`,
  )
  .raw()
  .all();
db.close();
let covered = 0;
const items = [];
for (const [email, month, count] of userMonths) {
  if (covered >= CHANGED) break;
  items.push({ user: email, group_dimension: 'region', group: 'Sync bench', start_date: formatMonth(month), end_date: formatMonth(month) });
  covered += count;
}
await store.close();

const server = await startServerProcess(dbPath, { serveArgs: ['--log-level', 'warn'] });
const results: string[] = [];
try {
  const get = async (path: string) => {
    const started = performance.now();
    const response = await fetch(`${server.url}${path}`, { headers: { 'X-API-Key': read.key } });
    const body = (await response.json()) as { count: number; sync_token?: string };
    if (response.status !== 200 || body.sync_token === undefined) throw new Error(`${path}: ${response.status}`);
    return { count: body.count, token: body.sync_token, ms: performance.now() - started };
  };
  /** The sync from `since`, REQUESTS times: records read, server CPU ms per request, median wall ms. */
  const measure = async (name: string, since: string) => {
    for (let i = 0; i < 20; i += 1) await get(`/v1/reporting?changed_since=${since}`); // warm-up
    const cpuBefore = server.cpuSeconds();
    const walls: number[] = [];
    let count = 0;
    for (let i = 0; i < requests; i += 1) {
      const answer = await get(`/v1/reporting?changed_since=${since}`);
      walls.push(answer.ms);
      count = answer.count;
    }
    const cpuMs = ((server.cpuSeconds() - cpuBefore) * 1000) / requests;
    const line = `| ${name} | ${count} | ${cpuMs.toFixed(2)} | ${median(walls).toFixed(2)} |`;
    console.log(line);
    results.push(line);
  };
  /** The ruler: a plain page of as many records, by offset, measured the same way. */
  const ruler = async () => {
    const cpuBefore = server.cpuSeconds();
    const walls: number[] = [];
    for (let i = 0; i < requests; i += 1) {
      const started = performance.now();
      const response = await fetch(`${server.url}/v1/reporting?limit=${CHANGED}&offset=${Math.floor(config.records / 2)}`, { headers: { 'X-API-Key': read.key } });
      await response.arrayBuffer();
      walls.push(performance.now() - started);
    }
    const line = `| (ruler: a page of ${CHANGED} records by offset, no sync) | ${CHANGED} | ${(((server.cpuSeconds() - cpuBefore) * 1000) / requests).toFixed(2)} | ${median(walls).toFixed(2)} |`;
    console.log(line);
    results.push(line);
  };
  await ruler();
  await measure(`import of ${CHANGED} records`, afterImport);
  const response = await fetch(`${server.url}/v1/users/groups/bulk`, {
    method: 'PUT',
    headers: { 'X-API-Key': read.key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ data: items }),
  });
  if (response.status !== 200) throw new Error(`bulk PUT: ${response.status} ${await response.text()}`);
  await measure(`bulk PUT of ${items.length} months of one user (${covered} records)`, importSync.token);
} finally {
  await server.stop();
}

const report = [
  `# Incremental sync: ${config.records} reporting records (bench/syncCost.ts)`,
  '',
  `${new Date().toISOString()}. ${lines[0]}. Then 1,000 records changed, and the sync of the change asked ${requests} times of a \`compdata serve\` process (\`GET /v1/reporting?changed_since=TOKEN\`, limit 2000):`,
  '',
  '| change | records read | server CPU ms/request | wall ms/request (p50, client included) |',
  '|---|---|---|---|',
  ...results,
  '',
];
mkdirSync('bench/results', { recursive: true });
const out = `bench/results/sync-${new Date().toISOString().replace(/[:.]/g, '-')}.md`;
writeFileSync(out, report.join('\n'));
console.log(`written to ${out}`);
