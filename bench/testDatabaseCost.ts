/**
 * What a test's database costs the test run's PostgreSQL servers (or Citus cluster) in CPU:
 * making and dropping it (testDatabases.ts), opening a store over it, and a new connection
 * against a statement on a kept one. Run under the wrapper of the pass it is about:
 *
 *   node --import tsx test/support/withPostgres.ts node --import tsx bench/testDatabaseCost.ts
 *   node --import tsx test/support/withCitus.ts node --import tsx bench/testDatabaseCost.ts
 *
 * The servers are the wrapper's children (this process's siblings): each postmaster's CPU with
 * what it reaped of its backends, and its live backends', read from /proc before and after
 * each step (Linux only). `ROUNDS` (default 10) of each step; the figures are per round.
 */
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { openStore } from '../src/store/openStore.js';
import { newDatabase } from '../test/support/testDatabases.js';

const ROUNDS = Number(process.env.ROUNDS ?? 10);
const TICKS_PER_SECOND = 100;

interface ProcessTicks {
  parent: number;
  name: string;
  own: number;
  reaped: number;
}

function processTable(): Map<number, ProcessTicks> {
  const table = new Map<number, ProcessTicks>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ').map(Number);
    table.set(Number(entry), { parent: fields[1]!, name: stat.slice(stat.indexOf('(') + 1, close), own: fields[11]! + fields[12]!, reaped: fields[13]! + fields[14]! });
  }
  return table;
}

/** The CPU seconds the wrapper's postmasters and their live backends have spent so far. */
function serverSeconds(): number {
  const table = processTable();
  let ticks = 0;
  for (const [, info] of table) {
    if (info.name !== 'postgres') continue;
    const parent = table.get(info.parent);
    if (info.parent === process.ppid) ticks += info.own + info.reaped;
    else if (parent?.name === 'postgres' && parent.parent === process.ppid) ticks += info.own;
  }
  return ticks / TICKS_PER_SECOND;
}

async function step(name: string, work: () => Promise<void>): Promise<void> {
  const servers = serverSeconds();
  const own = process.cpuUsage();
  const started = performance.now();
  for (let round = 0; round < ROUNDS; round += 1) await work();
  const ms = (seconds: number) => `${((seconds / ROUNDS) * 1000).toFixed(1)} ms`;
  const { user, system } = process.cpuUsage(own);
  // The backends a step ended are reaped by their postmaster a moment later.
  await new Promise((resolve) => setTimeout(resolve, 300));
  process.stdout.write(`${name}: wall ${ms((performance.now() - started) / 1000)}, servers ${ms(serverSeconds() - servers)}, this process ${ms((user + system) / 1e6)}\n`);
}

/** Runs `work` with a scope whose `after` functions run when it ends, as a test's do. */
async function scoped(work: (scope: { after(fn: () => Promise<void> | void): void }) => Promise<void>): Promise<void> {
  const afters: (() => Promise<void> | void)[] = [];
  try {
    await work({ after: (fn) => void afters.push(fn) });
  } finally {
    for (const after of afters.reverse()) await after();
  }
}

const routed = (tenant: number) => `SELECT count(*) FROM users WHERE tenant_id = ${tenant}`;
async function newConnection(location: string, statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: location });
  await client.connect();
  for (const sql of statements) await client.query(sql);
  await client.end();
}

for (let pass = 1; pass <= 2; pass += 1) {
  process.stdout.write(`pass ${pass}\n`);
  await step('  a database made and dropped', () => scoped(async (scope) => void (await newDatabase(scope))));
  await step('  and a store opened and closed over it', () =>
    scoped(async (scope) => {
      const { location } = await newDatabase(scope);
      await (await openStore(location, { role: 'command' })).close();
    }),
  );
  await scoped(async (scope) => {
    const { location } = await newDatabase(scope);
    await (await openStore(location, { role: 'command' })).close();
    await step('  a new connection, SELECT 1', () => newConnection(location, ['SELECT 1']));
    await step('  a new connection, one tenant\'s read', () => newConnection(location, [routed(1)]));
    await step('  a new connection, three tenants\' reads', () => newConnection(location, [routed(1), routed(2), routed(3)]));
    const kept = new pg.Client({ connectionString: location });
    await kept.connect();
    await step('  one tenant\'s read on a kept connection', async () => void (await kept.query(routed(1))));
    await kept.end();
  });
}
process.exit(0);
