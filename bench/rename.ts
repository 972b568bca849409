/**
 * What a rename costs against a groups bulk PUT (docs/rules.md#users, "Records follow their
 * user"), on PostgreSQL, two builds side by side:
 *
 *   BENCH_POSTGRES=postgres://postgres@127.0.0.1:54347/postgres \
 *     node --import tsx bench/rename.ts A_DIR B_DIR [ROUNDS] [RENAMES] [PUTS]
 *
 * A_DIR and B_DIR hold a build (`bin/compdata.js` and its `dist/`). Each gets a database of its
 * own on the one PostgreSQL server, seeded by its own `compdata seed` (50,000 statement
 * reporting records over 200 users, the same for both) and served by its own `compdata serve`.
 * Then ROUNDS rounds (default 3), the builds' order alternating: on each build, RENAMES
 * requests (default 4) of `PUT /v1/users/bulk` renaming all 200 users (a new name each time),
 * then PUTS requests (default 20) of `PUT /v1/users/groups/bulk` of 200 region items (one per
 * user, a period in 2026 that moves every request), one connection, one request after the
 * other. Reported: medians over the rounds of the server CPU per request (the node process,
 * and the PostgreSQL server's postmaster with its children: run nothing else on that server)
 * and of p50 and p99 latency; then, on each build, how long a small write sent 20 ms after one
 * request of each kind waits (median of 5). Before each run both databases are vacuumed, outside the run, so
 * that no run pays for dead rows another left (a rename that rewrites records leaves as many).
 * Writes bench/results/rename-postgres-<time>.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import pg from 'pg';
import { formatMonth } from '../src/domain/months.js';
import { runScenario, type Sample, type Target } from './load.js';
import type { Scenario } from './scenarios.js';
import { postmasterPid, startServerProcess, type ServerProcess } from './serverProcess.js';
import { alternated, median } from './stats.js';

const [dirA, dirB, roundsArg, renamesArg, putsArg] = process.argv.slice(2);
const POSTGRES = process.env.BENCH_POSTGRES;
if (!dirA || !dirB || !POSTGRES) {
  console.error('usage: BENCH_POSTGRES=URL rename.ts A_DIR B_DIR [ROUNDS] [RENAMES] [PUTS]');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 3);
const renames = Number(renamesArg ?? 4);
const puts = Number(putsArg ?? 20);
const RECORDS = 50_000;
const FIRST_MONTH = 2026 * 12;

interface Side {
  dir: string;
  url: string;
  server: ServerProcess;
  key: string;
  emails: string[];
  regions: string[];
}

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

/** A fresh database for the build in `dir`, seeded by it, and its server. */
async function sideOf(dir: string, index: number): Promise<Side> {
  const name = `compdata_bench_rename_${index}`;
  await query(POSTGRES!, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await query(POSTGRES!, `CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES!);
  url.pathname = `/${name}`;
  const cli = (...args: string[]) => execFileSync(process.execPath, [`${dir}/bin/compdata.js`, ...args], { encoding: 'utf8' });
  cli('seed', '--db', url.toString(), '--tenant', 'bench', '--records', String(RECORDS), '--users', '200');
  const key = cli('keys', 'create', '--db', url.toString(), '--tenant', 'bench').trimEnd().split('\n').at(-1)!;
  const emails = (await query<{ email: string }>(url.toString(), 'SELECT email FROM users ORDER BY pk')).map((row) => row.email);
  const regions = (
    await query<{ name: string }>(url.toString(), `SELECT g.name FROM groups g JOIN dimensions d ON d.tenant_id = g.tenant_id AND d.pk = g.dimension_pk WHERE d.key = 'region' ORDER BY g.name`)
  ).map((row) => row.name);
  const server = await startServerProcess(url.toString(), {
    bin: `${dir}/bin/compdata.js`,
    serveArgs: ['--log-level', 'warn', '--idle-timeout', '300000', '--request-timeout', '300000'],
    databasePid: postmasterPid(process.env.BENCH_POSTGRES_DATA ?? 'bench/.work/postgres/data'),
  });
  return { dir, url: url.toString(), server, key, emails, regions };
}

let sent = 0;
const put = (title: string, path: string, body: (n: number) => unknown): Scenario =>
  ({
    kind: 'read',
    title,
    connections: 1,
    server: 'read',
    recordsPerRequest: 0,
    requests: () => ({
      timeout: 300,
      requests: [
        {
          method: 'PUT',
          path,
          headers: { 'Content-Type': 'application/json' },
          setupRequest: (request: Record<string, unknown>) => ({ ...request, body: JSON.stringify(body((sent += 1))) }),
        },
      ],
    }),
  }) as unknown as Scenario;
const renameBody = (side: Side) => (n: number) => ({ data: side.emails.map((email, i) => ({ email, name: `Bench ${n} ${i}` })) });
const groupsBody = (side: Side) => (n: number) => ({
  data: side.emails.map((user, i) => ({
    user,
    group_dimension: 'region',
    group: side.regions[(n + i) % side.regions.length],
    start_date: formatMonth(FIRST_MONTH + (n % 6)),
    end_date: formatMonth(FIRST_MONTH + (n % 6) + 2),
  })),
});

/**
 * How long the tenant's other writes wait behind one of these requests: a small write (one user
 * as stored) sent 20 ms after it, its latency (the median of 5), and how many of the 5 were
 * refused with a 503 for having waited for the tenant's write lock past the server's busy timeout.
 */
async function queuedBehind(side: Side, path: string, body: (n: number) => unknown): Promise<string> {
  const send = (to: string, json: unknown) =>
    fetch(`${side.server.url}${to}`, { method: 'PUT', headers: { 'X-API-Key': side.key, 'Content-Type': 'application/json' }, body: JSON.stringify(json) });
  const waits: number[] = [];
  let refused = 0;
  for (let i = 0; i < 5; i += 1) {
    const big = send(path, body((sent += 1)));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = performance.now();
    const small = await send('/v1/users/bulk', { data: [{ email: side.emails[0] }] });
    await small.text();
    waits.push(performance.now() - started);
    if (small.status === 503) refused += 1;
    else if (small.status !== 200) throw new Error(`the small write answered ${small.status}`);
    const answer = await big;
    await answer.text();
    if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
  }
  return `${median(waits).toFixed(1)}${refused > 0 ? ` (${refused} of 5: 503)` : ''}`;
}

const sides = [await sideOf(dirA, 0), await sideOf(dirB, 1)];
const kinds = [
  { name: 'PUT /v1/users/bulk, 200 users renamed (50,000 records)', path: '/v1/users/bulk', body: renameBody, amount: renames },
  { name: 'PUT /v1/users/groups/bulk, 200 region items', path: '/v1/users/groups/bulk', body: groupsBody, amount: puts },
];
const scenarioOf = (kind: (typeof kinds)[number], side: Side) => put(kind.name, kind.path, kind.body(side));
const samples: Sample[][][] = kinds.map(() => sides.map(() => []));
const loadBefore = loadavg().map((n) => n.toFixed(2)).join(' ');
try {
  for (const kind of kinds) for (const side of sides) await runScenario(scenarioOf(kind, side), { server: side.server, key: side.key }, 300, 1);
  for (let round = 0; round < rounds; round += 1) {
    for (const s of alternated([0, 1], round)) {
      const side = sides[s]!;
      const target: Target = { server: side.server, key: side.key };
      for (const [k, kind] of kinds.entries()) {
        for (const each of sides) await query(each.url, 'VACUUM');
        const sample = await runScenario(scenarioOf(kind, side), target, 300, kind.amount);
        if (sample.errors + sample.non2xx > 0) throw new Error(`${kind.name} on ${side.dir}: ${sample.errors} errors, ${sample.non2xx} non-2xx`);
        samples[k]![s]!.push(sample);
      }
    }
  }
  const waits = [];
  for (const kind of kinds) for (const side of sides) waits.push(await queuedBehind(side, kind.path, kind.body(side)));
  const lines = [
    "| request | build | server CPU ms/req | ÷ A's groups PUT | p50 ms | p99 ms | a write sent 20 ms after it waits, ms |",
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  const cpuOf = (k: number, s: number) => median(samples[k]![s]!.map((sample) => sample.serverCpuMsPerRequest));
  const reference = cpuOf(1, 0);
  for (const [k, kind] of kinds.entries()) {
    for (const [s, side] of sides.entries()) {
      const m = (field: keyof Sample) => median(samples[k]![s]!.map((sample) => sample[field]));
      lines.push(
        `| ${kind.name} | ${side.dir} | ${cpuOf(k, s).toFixed(1)} | ${(cpuOf(k, s) / reference).toFixed(2)} | ${m('p50').toFixed(1)} | ${m('p99').toFixed(1)} | ${waits[k * sides.length + s]!} |`,
      );
    }
  }
  const loadAfter = loadavg().map((n) => n.toFixed(2)).join(' ');
  lines.push(
    '',
    `medians of ${rounds} rounds (${renames} renames and ${puts} groups PUTs per build and round, one connection); load average ${loadBefore} before, ${loadAfter} after`,
    '',
    `Command: BENCH_POSTGRES=… node --import tsx bench/rename.ts ${process.argv.slice(2).join(' ')}`,
  );
  console.log(lines.join('\n'));
  mkdirSync('bench/results', { recursive: true });
  const file = `bench/results/rename-postgres-${new Date().toISOString().replace(/[:.]/g, '-')}.md`;
  writeFileSync(file, `${lines.join('\n')}\n`);
  console.log(`written to ${file}`);
} finally {
  for (const side of sides) await side.server.stop();
}
