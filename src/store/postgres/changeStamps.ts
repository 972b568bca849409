import { firstRow, run, statement, type Queryable } from './connection.js';

/**
 * The stamps of incremental sync (see ../sqlite/migrations.ts, migration 5): each transaction
 * that changes a tenant's records takes the next number of the tenant's change counter and
 * writes it on what it changed. The counter is the tenant's last stamp in `stamp_times`
 * (migration 12): a new stamp is one row written there, by one statement that on Citus goes to
 * the tenant's node as one task. Every writer of the tenant holds the tenant's write lock first
 * (writeSteps.ts), so stamps are taken, and commit, in order.
 *
 * Each stamp is dated in the same statement (see ../sqlite/migrations.ts, 8): the time the
 * statement arrived, in milliseconds, or one millisecond past the tenant's last stamp's, so that
 * times increase with stamps whatever the clocks of the servers that write. (Not
 * `clock_timestamp()`: Citus plans no INSERT ... SELECT with a volatile function as one task.)
 */
const ISO_MS = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
// The target has an alias for RETURNING: Citus 13 sends `stamp_times.stamp` to the worker otherwise, which the shard's name does not match.
const next = statement<[number], { stamp: number; at: string }>(
  `INSERT INTO stamp_times AS n (tenant_id, stamp, at)
   SELECT s.tenant_id, coalesce(l.stamp, 0) + 1,
     greatest(to_char(statement_timestamp() AT TIME ZONE 'UTC', ${ISO_MS}) COLLATE "C", to_char(l.at::timestamp + interval '1 millisecond', ${ISO_MS}) COLLATE "C")
   FROM tenant_state s LEFT JOIN LATERAL (SELECT t.stamp, t.at FROM stamp_times t WHERE t.tenant_id = $1 ORDER BY t.stamp DESC LIMIT 1) AS l ON true
   WHERE s.tenant_id = $1
   RETURNING n.stamp, n.at`,
);
const resyncFrom = statement<[number, number]>('UPDATE tenant_state SET resync_from = $2 WHERE tenant_id = $1');

/** The tenant `$1`'s change counter: its last stamp (SQL). */
export const CHANGE_COUNTER = 'coalesce((SELECT max(c.stamp) FROM stamp_times c WHERE c.tenant_id = $1), 0)';

/**
 * The time of stamp `stamp` of tenant `tenant` (SQL expressions), as a statement that writes the
 * stamp on a row writes it beside (`changed_at`, see ../sqlite/migrations.ts, 8).
 */
export const stampTime = (tenant: string, stamp: string) => `(SELECT at FROM stamp_times WHERE tenant_id = ${tenant} AND stamp = ${stamp})`;

export function changeStamps(db: Queryable) {
  return {
    /** A new stamp for this transaction's changes of the tenant, and its time (`replace`: tokens from before it call for a new sync). */
    async next(tenantId: number, replace = false): Promise<{ stamp: number; at: string }> {
      const taken = (await firstRow(db, next, tenantId))!;
      if (replace) await run(db, resyncFrom, tenantId, taken.stamp);
      return taken;
    },
  };
}
