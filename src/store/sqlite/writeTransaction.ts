import { runTenantWrite } from '../writes/runTenantWrite.js';
import type { TenantWrite, WriteOutcome, WrittenBy } from '../vocabulary/writeShapes.js';
import { archiveSteps } from './archiveSteps.js';
import { bulkSteps } from './bulkSteps.js';
import { idempotencySteps } from './idempotencySteps.js';
import { importSteps } from './importSteps.js';
import type { Db } from './db.js';
import { userSteps } from './userSteps.js';
import { writerCache } from './writerCache.js';
import { writeSteps } from './writeSteps.js';
import { wallClockMs } from '../threads/writeThreadProtocol.js';

/**
 * The bulks on SQLite: the engine-neutral write (../writes/runTenantWrite.ts) in one IMMEDIATE
 * transaction, so concurrent requests (of this or any other process) are serialised and every
 * check reads the data it is about to change (docs/rules.md#bulk-attributions). Nothing is
 * committed unless everything was written: a broken rule rolls back (nothing was written yet),
 * and so does any error. For the writer thread's connection only, which runs one request at a
 * time: the transaction spans the write's awaits, which on SQLite's synchronous steps all
 * settle at once. `beforeCommit` runs after the writes, inside the transaction (a test's way to
 * kill a writer there). `arrivedAt` (see `wallClockMs`) is when the write reached the store: the
 * time until BEGIN IMMEDIATE returns is its wait for the write lock, queue included.
 */
export function tenantWriter(
  db: Db,
  beforeCommit?: () => void,
): <W extends TenantWrite>(tenantId: number, write: W, arrivedAt: number) => Promise<WriteOutcome<WrittenBy<W>>> {
  const cache = writerCache(db);
  const attributionsFor = bulkSteps(db, cache);
  const usersFor = userSteps(db);
  const archives = archiveSteps(db);
  const idempotencyFor = idempotencySteps(db);
  const importsFor = importSteps(db);
  const writes = writeSteps(db);
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const rollback = db.prepare('ROLLBACK');
  return async (tenantId, write, arrivedAt) => {
    begin.run();
    const lockWaitMs = wallClockMs() - arrivedAt;
    try {
      cache.check();
      const attributions = () => attributionsFor(tenantId);
      const archive = () => ({ ...attributions(), ...archives });
      const imports = () => ({ tenantId, imports: importsFor(tenantId), writes, textHoldsNul: true });
      const steps = { attributions, users: () => usersFor(tenantId), archive, idempotency: () => idempotencyFor(tenantId), imports };
      const outcome = await runTenantWrite(steps, write);
      if ('broken' in outcome) {
        rollback.run(); // nothing was written: what the cache learnt holds
        return { ...outcome, lockWaitMs };
      }
      beforeCommit?.();
      commit.run();
      // Users written or archived: what the cache knows of them (or knew as no user's) may have changed.
      if (write.kind !== 'attributions') cache.forget();
      return { ...outcome, lockWaitMs };
    } catch (error) {
      if (db.inTransaction) rollback.run();
      cache.forget();
      throw error;
    }
  };
}
