/**
 * What a rename costs beside a groups bulk (issue 42): builds side by side, each serving its own
 * copy of one SQLite store seeded with 200 users who own RECORDS records, each round in an order
 * that changes. Per build and round:
 * - `PUT /v1/users/bulk` renaming the 200 users (a new name each), and `PUT /v1/users/groups/bulk`
 *   of 200 items (each user's region from a month on, a group that changes every round): the
 *   server's CPU for the request (read from /proc) and its time;
 * - the wait of another write of the tenant behind each: a one-user `PUT /v1/users/bulk` sent
 *   while the large one runs, its time from its send to its answer.
 * Prints medians and the ratios to the first build's groups bulk.
 *
 *   node --import tsx bench/renameCost.ts DIR DIR [ROUNDS] [RECORDS]
 *
 * A DIR holds `bin/compdata.js` and its `dist/` (this checkout `.`, a copy at another commit).
 * Each build seeds its own store with the same records (`--seed 1`): two builds may store one
 * schema version differently (an unreleased migration changed in place), so neither opens the
 * other's file.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startServerProcess, type ServerProcess } from './serverProcess.js';
import { alternated, median } from './stats.js';

const dirs = process.argv.slice(2).filter((arg) => arg.startsWith('.') || arg.startsWith('/'));
const [rounds = 7, records = 50_000] = process.argv
  .slice(2)
  .filter((arg) => !dirs.includes(arg))
  .map(Number);
if (dirs.length < 2) {
  console.error('usage: renameCost.ts DIR DIR [ROUNDS] [RECORDS]');
  process.exit(2);
}
const directory = mkdtempSync(join(tmpdir(), 'compdata-bench-rename-'));
const cli = (dir: string, ...args: string[]) => execFileSync(process.execPath, [`${dir}/bin/compdata.js`, ...args], { encoding: 'utf8' });
const stores = dirs.map((dir, i) => {
  const path = join(directory, `side-${i}.db`);
  cli(dir, 'seed', '--db', path, '--tenant', 'demo', '--users', '200', '--records', String(records), '--seed', '1');
  return path;
});
const { emails, owned, regions } = storeFacts(stores[0]!);
for (const path of stores.slice(1)) {
  if (JSON.stringify(storeFacts(path)) !== JSON.stringify({ emails, owned, regions })) throw new Error(`${path} holds other users or records than ${stores[0]}`);
}

/** The 200 users' e-mails, how many records they own, and the region groups. */
function storeFacts(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    const emails = db.prepare<[], string>('SELECT email FROM users ORDER BY pk LIMIT 200').pluck().all();
    const owned = db.prepare<[], number>('SELECT count(*) FROM reporting_records WHERE user_pk IN (SELECT pk FROM users ORDER BY pk LIMIT 200)').pluck().get()!;
    const regions = db.prepare<[], string>("SELECT g.name FROM groups g JOIN dimensions d ON d.pk = g.dimension_pk WHERE d.key = 'region' ORDER BY g.pk").pluck().all();
    return { emails, owned, regions };
  } finally {
    db.close();
  }
}

interface Side {
  dir: string;
  server: ServerProcess;
  key: string;
}
type Kind = 'rename' | 'groups';
interface Sample {
  cpuMs: number;
  ms: number;
  otherWriteMs: number;
}

const sides: Side[] = [];
let round = 0;
const bodies: Record<Kind, () => unknown> = {
  rename: () => ({ data: emails.map((email, i) => ({ email, name: `Bench ${round} ${i}` })) }),
  groups: () => ({
    data: emails.map((user, i) => ({ user, group_dimension: 'region', group: regions[(round + i) % regions.length], start_date: `2025-${String((round % 12) + 1).padStart(2, '0')}` })),
  }),
};
const paths: Record<Kind, string> = { rename: '/v1/users/bulk', groups: '/v1/users/groups/bulk' };

async function put(side: Side, path: string, body: unknown): Promise<void> {
  const answer = await fetch(`${side.server.url}${path}`, {
    method: 'PUT',
    headers: { 'X-API-Key': side.key, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await answer.text();
  if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}: ${text.slice(0, 300)}`);
}

/** One large write, with a one-user write sent while it runs (after `lead` ms); CPU counted over both (the small one's is about a millisecond). */
async function measure(side: Side, kind: Kind, lead: number): Promise<Sample> {
  const cpu = side.server.cpuSeconds();
  const started = performance.now();
  const large = put(side, paths[kind], bodies[kind]()).then(() => performance.now() - started);
  await new Promise((resolve) => setTimeout(resolve, lead));
  const sent = performance.now();
  const other = put(side, '/v1/users/bulk', { data: [{ email: emails[0] }] }).then(() => performance.now() - sent);
  const [ms, otherWriteMs] = await Promise.all([large, other]);
  return { cpuMs: (side.server.cpuSeconds() - cpu) * 1000, ms, otherWriteMs };
}

try {
  for (const [i, dir] of dirs.entries()) {
    const copy = stores[i]!;
    const key = cli(dir, 'keys', 'create', '--db', copy, '--tenant', 'demo').trimEnd().split('\n').at(-1)!;
    const server = await startServerProcess(copy, { bin: `${dir}/bin/compdata.js`, serveArgs: ['--log-level', 'warn', '--request-timeout', '300000'] });
    sides.push({ dir, server, key });
  }
  const samples = sides.map(() => ({ rename: [] as Sample[], groups: [] as Sample[] }));
  // One of each first, not counted: each process has then read the pages it writes.
  for (const side of sides) for (const kind of ['rename', 'groups'] as const) await measure(side, kind, 5);
  for (round = 1; round <= rounds; round += 1) {
    for (const index of alternated(sides.map((_, i) => i), round)) {
      for (const kind of ['rename', 'groups'] as const) samples[index]![kind].push(await measure(sides[index]!, kind, 5));
    }
  }
  const first = median(samples[0]!.groups.map((sample) => sample.cpuMs));
  const lines = [
    `200 users owning ${owned} of ${records} records; medians of ${rounds} rounds; load average at the end ${loadavg().map((n) => n.toFixed(2)).join(' ')}`,
    '',
    '| build | PUT | server CPU ms | ÷ first build\'s groups bulk | time ms | a one-user write sent 5 ms after it, answered after ms |',
    '|---|---|---:|---:|---:|---:|',
  ];
  for (const [index, side] of sides.entries()) {
    for (const kind of ['rename', 'groups'] as const) {
      const m = (field: keyof Sample) => median(samples[index]![kind].map((sample) => sample[field]));
      const title = kind === 'rename' ? 'users bulk, 200 renamed' : 'groups bulk, 200 items';
      lines.push(`| ${side.dir} | ${title} | ${m('cpuMs').toFixed(1)} | ${(m('cpuMs') / first).toFixed(2)} | ${m('ms').toFixed(1)} | ${m('otherWriteMs').toFixed(1)} |`);
    }
  }
  lines.push('', `Command: node --import tsx bench/renameCost.ts ${dirs.join(' ')} ${rounds} ${records}`);
  console.log(lines.join('\n'));
} finally {
  for (const side of sides) await side.server.stop();
  rmSync(directory, { recursive: true, force: true });
}
