/**
 * Where the time of a sandbox copy, reset and deletion goes on SQLite, in process (no HTTP, no
 * thread): a template of RECORDS records seeded as `compdata seed` seeds one, then RUNS times a
 * copy into a new tenant (the statements of src/store/sqlite/tenantCopy.ts), a reset of it (the
 * deletion of its data, then the same copy) and its deletion, each in one IMMEDIATE transaction
 * as the store runs them. Every statement is timed by wrapping the connection's `prepare`; the
 * commit apart (with the WAL's size before it). Medians over the runs, in milliseconds, with the
 * process's CPU time per operation. The connection does not checkpoint at its commits, as the
 * server's transaction thread (its checkpoint thread does); `--checkpoint-at-commit`: SQLite's
 * default, as a connection of the CLI. `--without-index NAME`: that index dropped first, to see
 * what it costs.
 *
 *   node --import tsx bench/sandboxCopySteps.ts [--runs 10] [--records 10000] [--checkpoint-at-commit] [--without-index NAME]
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateSeed } from '../src/dataset/generateSeed.js';
import { seedTenant } from '../src/dataset/seedTenant.js';
import { openStore } from '../src/store/openStore.js';
import { openDatabase, type Db } from '../src/store/sqlite/db.js';
import { writeSteps } from '../src/store/sqlite/writeSteps.js';
import { median } from './stats.js';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '10' },
    records: { type: 'string', default: '10000' },
    'checkpoint-at-commit': { type: 'boolean', default: false },
    'without-index': { type: 'string', multiple: true, default: [] },
  },
});
const RUNS = Number(args.runs);
const RECORDS = Number(args.records);

const work = mkdtempSync(join(tmpdir(), 'compdata-copy-steps-'));
const path = join(work, 'bench.db');
const seeding = await openStore(path, { role: 'command' });
await seedTenant(seeding, 'template', generateSeed({ seed: 'bench', users: Math.max(10, Math.round(RECORDS / 50)), records: RECORDS }));
await seeding.close();

/** Milliseconds of each statement in the operation being measured, by the statement's first words. */
let current = new Map<string, number>();
const db = timed(openDatabase(path, { role: 'writer' }));
if (!args['checkpoint-at-commit']) db.pragma('wal_autocheckpoint = 0');
for (const index of args['without-index']) db.exec(`DROP INDEX ${index}`);
const steps = writeSteps(db);
const template = (await steps.findTenant('template'))!.id;
const times = { copy: [] as Map<string, number>[], reset: [] as Map<string, number>[], delete: [] as Map<string, number>[] };

/** `work` in one IMMEDIATE transaction, its statements timed into `into`, the commit apart. */
function measured(into: Map<string, number>[], work: () => void): void {
  current = new Map();
  const cpu = process.cpuUsage();
  const started = performance.now();
  db.exec('BEGIN IMMEDIATE');
  work();
  const walBytes = statSync(`${path}-wal`).size;
  const committing = performance.now();
  db.exec('COMMIT');
  current.set('COMMIT', performance.now() - committing);
  current.set('(whole transaction)', performance.now() - started);
  const used = process.cpuUsage(cpu);
  current.set('(CPU, user + system)', (used.user + used.system) / 1000);
  current.set('(WAL MB before the commit)', walBytes / 1e6);
  into.push(current);
}

for (let run = 0; run < RUNS; run += 1) {
  // The WAL folded first, as the server's checkpoint thread keeps it.
  db.pragma('wal_checkpoint(TRUNCATE)');
  let copy = 0;
  measured(times.copy, () => {
    copy = (steps.ensureTenant(`copy-${run}`) as { id: number }).id;
    steps.dataChanged(copy);
    steps.copyData(template, copy, steps.nextStamp(copy, false) as number);
  });
  db.pragma('wal_checkpoint(TRUNCATE)');
  measured(times.reset, () => {
    steps.deleteData(copy);
    steps.dataChanged(copy);
    steps.copyData(template, copy, steps.nextStamp(copy, true) as number);
  });
  db.pragma('wal_checkpoint(TRUNCATE)');
  measured(times.delete, () => void steps.deleteTenant(copy));
}
db.close();
rmSync(work, { recursive: true, force: true });

const how = [args['checkpoint-at-commit'] ? 'checkpoint at commit' : 'no checkpoint at commit', ...args['without-index'].map((index) => `without ${index}`)];
process.stdout.write(`SQLite, template of ${RECORDS} records, ${how.join(', ')}; medians of ${RUNS} runs, ms (load average ${readLoad()})\n`);
for (const [operation, runs] of Object.entries(times)) {
  process.stdout.write(`\n${operation}\n`);
  for (const label of runs[0]!.keys()) {
    const value = median([...runs.map((run) => run.get(label) ?? 0)].sort((a, b) => a - b));
    if (value >= 0.5 || label.startsWith('(')) process.stdout.write(`  ${value.toFixed(1).padStart(7)}  ${label}\n`);
  }
}

/** The connection with each statement's `run` timed under its first words (summed within an operation). */
function timed(connection: Db): Db {
  const prepare = connection.prepare.bind(connection);
  connection.prepare = ((sql: string) => {
    const statement = prepare(sql);
    const run = statement.run.bind(statement);
    const label = sql.replace(/\s+/g, ' ').trim().slice(0, 70);
    statement.run = (...params: unknown[]) => {
      const started = performance.now();
      try {
        return run(...(params as []));
      } finally {
        current.set(label, (current.get(label) ?? 0) + performance.now() - started);
      }
    };
    return statement;
  }) as Db['prepare'];
  return connection;
}

function readLoad(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return '?';
  }
}
