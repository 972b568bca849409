/**
 * The page statements of two builds side by side in one process, each over its own copy of one
 * store (a build migrates its copy when it opens it): CPU milliseconds for N pages, v1 and v2, of
 * 2000 records and of 100 at offsets spread over the store, alternating the builds' order every
 * round; medians and the ratio to the first build. Beside bench/versus.ts, which measures whole
 * requests: on a machine shared with other work, this one leaves out HTTP and the other
 * processes' noise that a server's CPU time takes in.
 *
 *   node --import tsx bench/pageStatementVersus.ts DIR:DB DIR:DB [ROUNDS]
 *
 * A DIR holds a build (`dist/`), DB a SQLite store seeded for the tenant `bench`
 * (bench/stores.ts) that the DIR's build may open.
 */
import { loadavg } from 'node:os';
import { median } from './stats.js';

type Db = { prepare(sql: string): { pluck(): { get(...args: unknown[]): unknown } } };
type Page = { count: number; json: Buffer };
interface Side {
  name: string;
  v1(from: number, n: number): Page;
  v2(from: number, n: number): Page;
  records: number;
}

const specs = process.argv.slice(2).filter((arg) => arg.includes(':'));
const rounds = Number(process.argv.slice(2).find((arg) => !arg.includes(':')) ?? 7);
if (specs.length !== 2) {
  console.error('usage: pageStatementVersus.ts DIR:DB DIR:DB [ROUNDS]');
  process.exit(2);
}

async function side(spec: string): Promise<Side> {
  const [dir, path] = spec.split(':') as [string, string];
  const { openDatabase } = (await import(`${dir}/dist/src/store/sqlite/db.js`)) as { openDatabase: (path: string, options: object) => Db };
  const { pagedReads } = (await import(`${dir}/dist/src/store/sqlite/pagedReads.js`)) as {
    pagedReads: (db: Db) => { reporting(tenant: number, empty: string): { joined(from: number, n: number): Page } };
  };
  const { v2Reads } = (await import(`${dir}/dist/src/store/sqlite/v2Reads.js`)) as {
    v2Reads: (db: Db) => { statements(tenant: number): { joined(from: number, n: number): Page } };
  };
  const db = openDatabase(path, { role: 'server' });
  const tenant = db.prepare("SELECT id FROM tenants WHERE name = 'bench'").pluck().get() as number;
  const empty = db.prepare('SELECT empty_fragment FROM tenants WHERE id = ?').pluck().get(tenant) as string;
  const records = db.prepare('SELECT count(*) FROM reporting_records WHERE tenant_id = ?').pluck().get(tenant) as number;
  const v1 = pagedReads(db).reporting(tenant, empty);
  const v2 = v2Reads(db).statements(tenant);
  return { name: spec, v1: (from, n) => v1.joined(from, n), v2: (from, n) => v2.joined(from, n), records };
}

const sides = [await side(specs[0]!), await side(specs[1]!)];
const kinds = [
  { name: 'v1, 2000 records', read: 'v1', n: 2000, pages: 25 },
  { name: 'v1, 100 records', read: 'v1', n: 100, pages: 500 },
  { name: 'v2, 2000 records', read: 'v2', n: 2000, pages: 25 },
  { name: 'v2, 100 records', read: 'v2', n: 100, pages: 500 },
] as const;
const samples = kinds.map(() => sides.map(() => [] as number[]));
const run = (s: Side, kind: (typeof kinds)[number]) => {
  const started = process.cpuUsage();
  let bytes = 0;
  for (let i = 0; i < kind.pages; i += 1) bytes += s[kind.read](((i * 7919) % Math.floor(s.records / kind.n)) * kind.n, kind.n).json.length;
  const used = process.cpuUsage(started);
  return { ms: (used.user + used.system) / 1000, bytes };
};
// Each side reads every page once first: both have then mapped what they read.
for (const s of sides) for (const kind of kinds) run(s, kind);
for (let round = 0; round < rounds; round += 1) {
  for (const [k, kind] of kinds.entries()) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    const bytes: number[] = [];
    for (const i of order) {
      const { ms, bytes: b } = run(sides[i]!, kind);
      samples[k]![i]!.push(ms);
      bytes[i] = b;
    }
    if (bytes[0] !== bytes[1]) throw new Error(`${kind.name}: the builds read ${bytes[0]} and ${bytes[1]} bytes`);
  }
}
const lines = ['| pages | build | CPU ms | ÷ first |', '|---|---|---:|---:|'];
for (const [k, kind] of kinds.entries()) {
  const first = median(samples[k]![0]!);
  for (const [i, s] of sides.entries()) {
    const m = median(samples[k]![i]!);
    lines.push(`| ${kind.pages} × ${kind.name} | ${s.name} | ${m.toFixed(1)} | ${(m / first).toFixed(3)} |`);
  }
}
lines.push('', `medians of ${rounds} rounds; load average at the end ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
console.log(lines.join('\n'));
