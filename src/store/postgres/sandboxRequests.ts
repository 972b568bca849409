import type { WriteSteps } from '../engine/transactionSteps.js';
import type { KeptCreate } from '../vocabulary/adminShapes.js';
import { firstRow, run, statement, type Queryable } from './connection.js';
import { LOCK_NAMESPACE } from './migrations.js';

/** Second key of the lock that sandboxes are counted under (tenants use their id, the migrations 0). */
const SANDBOX_COUNT_LOCK = -1;

const createdAt = statement<[number], { created_at: string }>('SELECT created_at FROM tenants WHERE id = $1');
const lockCount = statement<[number, number]>('SELECT pg_advisory_xact_lock($1, $2)');
const count = statement<[], { count: number }>('SELECT count(*)::integer AS count FROM sandbox_recipes');
const keep = statement<[string, number, string, Buffer, number]>(
  `INSERT INTO sandbox_requests (lookup, tenant_id, fingerprint, answer, created_at) VALUES ($1, $2, $3, $4, $5)
   ON CONFLICT (lookup) DO NOTHING`,
);
const forget = statement<[number]>('DELETE FROM sandbox_requests WHERE created_at < $1');

/** The sandboxes counted, and the answers kept for a create's retries (migration 29), inside the caller's transaction. */
export function sandboxRequestSteps(db: Queryable): Pick<WriteSteps, 'tenantCreatedAt' | 'countSandboxes' | 'keepCreate'> {
  return {
    tenantCreatedAt: async (tenantId) => (await firstRow(db, createdAt, tenantId))!.created_at,
    // Held until the transaction ends: a create counting after it sees this one committed (or rolled back).
    async countSandboxes() {
      await run(db, lockCount, LOCK_NAMESPACE, SANDBOX_COUNT_LOCK);
      return (await firstRow(db, count))!.count;
    },
    // In the create's transaction, which wrote `tenants` first: on Citus every transaction that
    // writes this reference table takes the two tables' locks in the one order.
    async keepCreate(tenantId, { lookup, fingerprint, answer, at }: KeptCreate, since) {
      await run(db, forget, since);
      return (await run(db, keep, lookup, tenantId, fingerprint, answer, at)) === 1;
    },
  };
}
