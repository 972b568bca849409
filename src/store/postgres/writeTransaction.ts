import type pg from 'pg';
import type { ImportRunSteps } from '../engine/apiWriteSteps.js';
import { runTenantWrite } from '../writes/runTenantWrite.js';
import type { TenantWrite, WriteOutcome, WrittenBy } from '../vocabulary/writeShapes.js';
import { archiveSteps } from './archiveSteps.js';
import { bulkSteps } from './bulkSteps.js';
import { idempotencySteps } from './idempotencySteps.js';
import { importSteps } from './importSteps.js';
import { inTransaction } from './connection.js';
import { userSteps } from './userSteps.js';
import { beginLocked, writeSteps } from './writeSteps.js';

/** A serialization failure or deadlock runs the request again, up to this many times in all. */
const ATTEMPTS = 5;

/**
 * The bulks on PostgreSQL: one transaction that first takes the tenant's write lock (waiting at
 * most `busyTimeoutMs`, then refused with 503 through `lock_timeout`), so that writes of one
 * tenant are serialised and those of different tenants run side by side; then the
 * engine-neutral write (../writes/runTenantWrite.ts) over set-wise steps. A serialization failure or a
 * deadlock is retried here, never shown to the client.
 */
export function tenantWrite<W extends TenantWrite>(
  pool: pg.Pool,
  tenantId: number,
  write: W,
  busyTimeoutMs: number,
  afterBatch?: ImportRunSteps['afterBatch'],
): Promise<WriteOutcome<WrittenBy<W>>> {
  const arrivedAt = performance.now();
  return inTransaction(
    pool,
    async (client) => {
      const lockWaitMs = performance.now() - arrivedAt; // a connection of the pool and the tenant's lock
      const attributions = () => bulkSteps(client, tenantId);
      const archive = () => ({ ...attributions(), ...archiveSteps(client, tenantId) });
      const imports = (): ImportRunSteps => ({ tenantId, imports: importSteps(client, tenantId), writes: writeSteps(client), textHoldsNul: false, afterBatch });
      const steps = { attributions, users: () => userSteps(client, tenantId), archive, idempotency: () => idempotencySteps(client, tenantId), imports };
      return { ...(await runTenantWrite(steps, write)), lockWaitMs };
    },
    { attempts: ATTEMPTS, begin: beginLocked(tenantId, busyTimeoutMs) },
  );
}
