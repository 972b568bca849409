/**
 * What one bulk upsert of 200 items costs the store alone, in this process, without HTTP or the
 * writer thread: the same `tenantWriter` the writer thread calls, over a fresh copy of the bulk
 * store (1,000,000 attributions by default), with the suite's request bodies. Prints CPU
 * milliseconds per upsert (user + system of this process) and wall milliseconds, medians of
 * rounds, and the WAL frames (database pages) one upsert writes. As in a server, the writer's
 * commits do not checkpoint; the WAL is checkpointed between rounds. For comparing ways of
 * writing the upsert; the suite's `bulk-put` measures the server (and serverThreads.ts splits
 * its CPU by thread).
 *
 *   node --import tsx bench/bulkCost.ts [UPSERTS_PER_ROUND] [ROUNDS] [--statements] [--spread]
 *
 * `--spread` moves the bodies' group items to other users (`spreadBody` in bulkStore.ts).
 * `--statements` also counts each SQL statement's calls and CPU time per upsert (COMMIT
 * included), over all rounds; the counting itself adds about a microsecond to each call.
 */
import Database from 'better-sqlite3';
import { bulkBodies, spreadBody } from './bulkStore.js';
import { benchConfig } from './config.js';
import { median } from './stats.js';
import { prepareBulkRunStore } from './stores.js';
import { upsertsFromBody } from '../src/http/bulkItems.js';
import { tenantWriter } from '../src/store/sqlite/writeTransaction.js';
import { openDatabase } from '../src/store/sqlite/db.js';
import { parseKey } from '../src/store/apiKeys.js';
import { keySteps } from '../src/store/sqlite/keys.js';
import { wallClockMs } from '../src/store/threads/writeThreadProtocol.js';

const [perRoundText = '300', roundsText = '3'] = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const perRound = Number(perRoundText);
const rounds = Number(roundsText);
const statements = process.argv.includes('--statements') ? countStatements() : undefined;
const config = benchConfig();
const store = await prepareBulkRunStore(config);
const db = openDatabase(store.dbPath, { role: 'writer' });
db.pragma('wal_autocheckpoint = 0'); // the server's writer leaves checkpoints to their own thread
db.pragma('wal_checkpoint(TRUNCATE)');
const tenantId = keySteps(db).lookup(parseKey(store.key)!.id)!.tenantId;
const write = tenantWriter(db);
const spread = process.argv.includes('--spread');
const bodies = bulkBodies(perRound * rounds, config.bulkItems, store.users).map((drawn, index) => {
  const body = spread ? spreadBody(drawn, index, store.users) : drawn;
  const parsed = upsertsFromBody((JSON.parse(body) as { data: Parameters<typeof upsertsFromBody>[0] }).data);
  if ('problems' in parsed) throw new Error('a bench body has items that end before they start');
  return parsed.upserts;
});

const cpu: number[] = [];
const wall: number[] = [];
const frames: number[] = [];
for (let round = 0; round < rounds; round += 1) {
  const startedCpu = process.cpuUsage();
  const started = performance.now();
  for (const items of bodies.slice(round * perRound, (round + 1) * perRound)) {
    const outcome = await write(tenantId, { kind: 'attributions', items }, wallClockMs());
    if ('broken' in outcome) throw new Error(`a bench body broke a rule: ${outcome.broken.detail}`);
  }
  const used = process.cpuUsage(startedCpu);
  cpu.push((used.user + used.system) / 1000 / perRound);
  wall.push((performance.now() - started) / perRound);
  const [written] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
  frames.push(written!.log / perRound);
  db.pragma('wal_checkpoint(TRUNCATE)'); // between rounds, as the checkpoint thread would
}
const pageSize = db.pragma('page_size', { simple: true }) as number;
db.close();
console.log(
  `bulk upsert of ${config.bulkItems} items over ${store.attributions} attributions: ` +
    `${median(cpu).toFixed(2)} ms CPU, ${median(wall).toFixed(2)} ms wall per upsert ` +
    `(medians of ${rounds} rounds of ${perRound}; rounds: ${cpu.map((ms) => ms.toFixed(2)).join(', ')} ms CPU); ` +
    `${median(frames).toFixed(0)} WAL frames (pages of ${pageSize} bytes) per upsert`,
);
if (statements) console.log(statements.table(perRound * rounds));

/**
 * Counts the calls and CPU time of every statement prepared from now on, by its SQL text:
 * better-sqlite3's `prepare` wrapped, and each statement's `run`, `get` and `all`.
 */
function countStatements(): { table(upserts: number): string } {
  const spent = new Map<string, { calls: number; cpuMs: number }>();
  const prototype = Database.prototype as unknown as { prepare: (this: Database.Database, sql: string) => Database.Statement };
  const prepare = prototype.prepare;
  prototype.prepare = function (sql: string) {
    const statement = prepare.call(this, sql) as unknown as Record<'run' | 'get' | 'all', (...args: unknown[]) => unknown>;
    const text = sql.replace(/\s+/g, ' ').trim();
    for (const method of ['run', 'get', 'all'] as const) {
      const call = statement[method].bind(statement);
      statement[method] = (...args) => {
        const started = process.cpuUsage();
        try {
          return call(...args);
        } finally {
          const used = process.cpuUsage(started);
          const entry = spent.get(text) ?? { calls: 0, cpuMs: 0 };
          entry.calls += 1;
          entry.cpuMs += (used.user + used.system) / 1000;
          spent.set(text, entry);
        }
      };
    }
    return statement as unknown as Database.Statement;
  };
  return {
    table(upserts) {
      const rows = [...spent].sort((a, b) => b[1].cpuMs - a[1].cpuMs).filter(([, entry]) => entry.cpuMs / upserts >= 0.01);
      return [
        '| CPU ms per upsert | calls per upsert | µs per call | statement |',
        '|---:|---:|---:|---|',
        ...rows.map(
          ([text, { calls, cpuMs }]) =>
            `| ${(cpuMs / upserts).toFixed(2)} | ${(calls / upserts).toFixed(1)} | ${((1000 * cpuMs) / calls).toFixed(1)} | ${text.length > 100 ? `${text.slice(0, 100)}…` : text} |`,
        ),
      ].join('\n');
    },
  };
}
