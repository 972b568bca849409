/**
 * The ceiling of the read scenarios: the records/s the store and the JSON rendering alone
 * reach, in this process, without HTTP: the same `pagedReads(db).….joined()` the server calls,
 * on the same file, with the tenant the server's key check gives. One thread, like the server.
 */
import { openDatabase } from '../src/store/sqlite/db.js';
import { parseKey } from '../src/store/apiKeys.js';
import { keySteps } from '../src/store/sqlite/keys.js';
import { pagedReads, type SqlitePagedSource } from '../src/store/sqlite/pagedReads.js';
import type { BenchConfig } from './config.js';
import type { CeilingKind } from './scenarios.js';

export type CeilingRates = Record<CeilingKind, number>;

/** Measures every ceiling once (call once per round; the suite reports medians). */
export function measureCeilings(dbPath: string, key: string, config: BenchConfig): CeilingRates {
  const db = openDatabase(dbPath);
  try {
    const principal = keySteps(db).lookup(parseKey(key)?.id ?? '');
    if (!principal) throw new Error('the bench key is not accepted by the store');
    const reads = pagedReads(db);
    const reporting = reads.reporting(principal.tenantId, principal.emptyFragment);
    const table = reads.tableRecords(principal.tenantId, 'deals');
    if (!table) throw new Error('the bench store has no deals table');
    const { limit, smallLimit, records } = config;
    const measureMs = config.ceilingSeconds * 1000;
    let walkFrom = 0;
    let random = 7;
    return {
      first: recordsPerSecond(reporting, measureMs, () => [0, limit]),
      deep: recordsPerSecond(reporting, measureMs, () => [records - limit, limit]),
      walk: recordsPerSecond(reporting, measureMs, () => {
        const from = walkFrom;
        walkFrom = walkFrom + limit >= records ? 0 : walkFrom + limit;
        return [from, limit];
      }),
      table: recordsPerSecond(table, measureMs, () => [0, limit]),
      'small-random': recordsPerSecond(reporting, measureMs, () => {
        random = (random * 1103515245 + 12345) % 2147483648;
        return [Math.floor((random / 2147483648) * (records - smallLimit)), smallLimit];
      }),
    };
  } finally {
    db.close();
  }
}

/** Records read per second by `joined(from, n)` calls, repeated for `measureMs`, with the pages `nextPage` gives. */
function recordsPerSecond(source: SqlitePagedSource, measureMs: number, nextPage: () => [from: number, n: number]): number {
  const started = performance.now();
  let records = 0;
  while (performance.now() - started < measureMs) {
    const [from, n] = nextPage();
    const page = source.joined(from, n);
    if (page.json.length === 0) throw new Error(`empty page at ${from}`);
    records += page.count;
  }
  return records / ((performance.now() - started) / 1000);
}
