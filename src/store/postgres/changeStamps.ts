import { firstRow, statement, type Queryable } from './connection.js';

/**
 * The stamps of incremental sync (see ../sqlite/migrations.ts, migration 5): each transaction
 * that changes a tenant's records takes the next number of the tenant's change counter and
 * writes it on what it changed. The counter's row stays locked until the transaction ends, and
 * every writer of the tenant holds the tenant's write lock first, so stamps commit in order.
 *
 * Each stamp is dated in the same statement (see ../sqlite/migrations.ts, 8): the clock's time
 * in milliseconds, or one millisecond past the tenant's last one, so that times increase with
 * stamps whatever the clocks of the servers that write.
 */
const ISO_MS = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const DATED = `stamp_time AS (
  INSERT INTO stamp_times (tenant_id, stamp, at)
  SELECT $1, sync_seq, greatest(to_char(clock_timestamp() AT TIME ZONE 'UTC', ${ISO_MS}) COLLATE "C",
    (SELECT to_char(at::timestamp + interval '1 millisecond', ${ISO_MS}) COLLATE "C" FROM stamp_times WHERE tenant_id = $1 ORDER BY stamp DESC LIMIT 1))
  FROM next_stamp RETURNING at)`;

const next = statement<[number, boolean], { stamp: number }>(
  `WITH next_stamp AS (
     UPDATE tenant_state SET sync_seq = sync_seq + 1, resync_from = CASE WHEN $2 THEN sync_seq + 1 ELSE resync_from END
     WHERE tenant_id = $1 RETURNING sync_seq),
   ${DATED}
   SELECT sync_seq AS stamp FROM next_stamp`,
);

/**
 * The time of stamp `stamp` of tenant `tenant` (SQL expressions), as a statement that writes the
 * stamp on a row writes it beside (`changed_at`, see ../sqlite/migrations.ts, 8).
 */
export const stampTime = (tenant: string, stamp: string) => `(SELECT at FROM stamp_times WHERE tenant_id = ${tenant} AND stamp = ${stamp})`;

/** The next stamp, dated, as CTEs a statement that writes changes begins with (`$1`: the tenant; `next_stamp` holds `sync_seq`, `stamp_time` its `at`). */
export const NEXT_STAMP_CTE = `next_stamp AS (UPDATE tenant_state SET sync_seq = sync_seq + 1 WHERE tenant_id = $1 RETURNING sync_seq), ${DATED}`;

export function changeStamps(db: Queryable) {
  return {
    /** A new stamp for this transaction's changes of the tenant (`replace`: tokens from before it call for a new sync). */
    next: async (tenantId: number, replace = false): Promise<number> => (await firstRow(db, next, tenantId, replace))!.stamp,
  };
}
