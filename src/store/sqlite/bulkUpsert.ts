import type { Upsert } from '../../domain/bulkItems.js';
import { bulkUpsertWith } from '../bulkUpsert.js';
import type { BulkOutcome } from '../store.js';
import { bulkSteps } from './bulkSteps.js';
import type { Db } from './db.js';
import { writerCache } from './writerCache.js';
import { wallClockMs } from './writerProtocol.js';

/**
 * `PUT /v1/users/groups/bulk` on SQLite: the engine-neutral upsert (../bulkUpsert.ts) in one
 * IMMEDIATE transaction, so concurrent requests (of this or any other process) are serialised
 * and every check reads the data it is about to change (docs/rules.md#bulk-attributions).
 * Nothing is committed unless every item was written: a broken rule rolls back (nothing was
 * written yet), and so does any error. For the writer thread's connection only, which runs one
 * request at a time: the transaction spans the upsert's awaits, which on SQLite's synchronous
 * steps all settle at once. `beforeCommit` runs after the writes, inside the transaction (a
 * test's way to kill a writer there). `arrivedAt` (see `wallClockMs`) is when the write reached
 * the store: the time until BEGIN IMMEDIATE returns is its wait for the write lock, queue
 * included.
 */
export function bulkUpserter(
  db: Db,
  beforeCommit?: () => void,
): (tenantId: number, items: readonly Upsert[], arrivedAt: number) => Promise<BulkOutcome> {
  const cache = writerCache(db);
  const stepsFor = bulkSteps(db, cache);
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const rollback = db.prepare('ROLLBACK');
  return async (tenantId, items, arrivedAt) => {
    begin.run();
    const lockWaitMs = wallClockMs() - arrivedAt;
    try {
      cache.check();
      const outcome = await bulkUpsertWith(stepsFor(tenantId), items);
      if ('broken' in outcome) {
        rollback.run(); // nothing was written: what the cache learnt holds
        return { ...outcome, lockWaitMs };
      }
      beforeCommit?.();
      commit.run();
      return { ...outcome, lockWaitMs };
    } catch (error) {
      if (db.inTransaction) rollback.run();
      cache.forget();
      throw error;
    }
  };
}
