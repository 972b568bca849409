/**
 * What one bulk upsert of 200 items costs the store alone, in this process, without HTTP or the
 * writer thread: the same `tenantWriter` the writer thread calls, over a fresh copy of the bulk
 * store (1,000,000 attributions by default), with the suite's request bodies. Prints CPU
 * milliseconds per upsert (user + system of this process) and wall milliseconds, medians of
 * rounds. For comparing ways of writing the upsert; the suite's `bulk-put` measures the server.
 *
 *   node --import tsx bench/bulkCost.ts [UPSERTS_PER_ROUND] [ROUNDS]
 */
import { bulkBodies } from './bulkStore.js';
import { benchConfig } from './config.js';
import { median } from './stats.js';
import { prepareBulkRunStore } from './stores.js';
import { upsertsFromBody } from '../src/http/bulkItems.js';
import { tenantWriter } from '../src/store/sqlite/bulkUpsert.js';
import { openDatabase } from '../src/store/sqlite/db.js';
import { parseKey } from '../src/store/apiKeys.js';
import { keySteps } from '../src/store/sqlite/keys.js';
import { wallClockMs } from '../src/store/sqlite/writerProtocol.js';

const perRound = Number(process.argv[2] ?? 300);
const rounds = Number(process.argv[3] ?? 3);
const config = benchConfig();
const store = await prepareBulkRunStore(config);
const db = openDatabase(store.dbPath, { role: 'writer' });
const tenantId = keySteps(db).lookup(parseKey(store.key)!.id)!.tenantId;
const write = tenantWriter(db);
const bodies = bulkBodies(perRound * rounds, config.bulkItems, store.users).map((body) => {
  const parsed = upsertsFromBody((JSON.parse(body) as { data: Parameters<typeof upsertsFromBody>[0] }).data);
  if ('problems' in parsed) throw new Error('a bench body has items that end before they start');
  return parsed.upserts;
});

const cpu: number[] = [];
const wall: number[] = [];
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
  db.pragma('wal_checkpoint(TRUNCATE)'); // between rounds, as the checkpoint thread would
}
db.close();
console.log(
  `bulk upsert of ${config.bulkItems} items over ${store.attributions} attributions: ` +
    `${median(cpu).toFixed(2)} ms CPU, ${median(wall).toFixed(2)} ms wall per upsert ` +
    `(medians of ${rounds} rounds of ${perRound}; rounds: ${cpu.map((ms) => ms.toFixed(2)).join(', ')} ms CPU)`,
);
