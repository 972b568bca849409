import type pg from 'pg';
import { itemRulesBroken, type Upsert } from '../../domain/bulkItems.js';
import { bulkUpsertWith } from '../bulkUpsert.js';
import type { BulkOutcome } from '../store.js';
import { bulkSteps } from './bulkSteps.js';
import { inTransaction, run, statement, storable } from './connection.js';
import { tenantStatements as tenants } from './tenantStatements.js';

/** A serialization failure or deadlock runs the request again, up to this many times in all. */
const ATTEMPTS = 5;

const lockTimeout = statement<[string]>(`SELECT set_config('lock_timeout', $1, true)`);

/**
 * `PUT /v1/users/groups/bulk` on PostgreSQL (docs/rules.md#bulk-attributions): one transaction
 * that first takes the tenant's write lock (waiting at most `busyTimeoutMs`, then refused with
 * 503 through `lock_timeout`), so that PUTs of one tenant are serialised and those of different
 * tenants run side by side; then the engine-neutral plan (../bulkUpsert.ts) over set-wise
 * steps. A serialization failure or a deadlock is retried here, never shown to the client.
 */
export function bulkUpsert(pool: pg.Pool, tenantId: number, items: readonly Upsert[], busyTimeoutMs: number): Promise<BulkOutcome> {
  const unstorable = unstorableGroups(items);
  if (unstorable) return Promise.resolve({ broken: unstorable });
  const arrivedAt = performance.now();
  return inTransaction(
    pool,
    async (client) => {
      await run(client, lockTimeout, `${Math.max(1, Math.trunc(busyTimeoutMs))}ms`);
      await tenants.lockForWriting(client, tenantId);
      const lockWaitMs = performance.now() - arrivedAt; // a connection of the pool and the tenant's lock
      return { ...(await bulkUpsertWith(bulkSteps(client, tenantId), items)), lockWaitMs };
    },
    { attempts: ATTEMPTS },
  );
}

/** Group names PostgreSQL cannot store (see `storable`): refused as a broken rule, before anything is read. */
function unstorableGroups(items: readonly Upsert[]) {
  const violations = items.flatMap((item, index) =>
    item.kind === 'group' && !storable(item.group) ? [{ index, message: 'group must not contain the character U+0000 on this server' }] : [],
  );
  return violations.length > 0 ? itemRulesBroken(violations) : undefined;
}
