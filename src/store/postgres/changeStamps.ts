import { firstRow, statement, type Queryable } from './connection.js';

/**
 * The stamps of incremental sync (see ../sqlite/migrations.ts, migration 5): each transaction
 * that changes a tenant's records takes the next number of the tenant's change counter and
 * writes it on what it changed. The counter's row stays locked until the transaction ends, and
 * every writer of the tenant holds the tenant's write lock first, so stamps commit in order.
 */
const next = statement<[number, boolean], { stamp: number }>(
  `UPDATE tenants SET sync_seq = sync_seq + 1, resync_from = CASE WHEN $2 THEN sync_seq + 1 ELSE resync_from END
   WHERE id = $1 RETURNING sync_seq AS stamp`,
);

/** `UPDATE tenants` of the next stamp, as a CTE a statement that writes changes begins with (`$1`: the tenant). */
export const NEXT_STAMP_CTE = 'next_stamp AS (UPDATE tenants SET sync_seq = sync_seq + 1 WHERE id = $1 RETURNING sync_seq)';

export function changeStamps(db: Queryable) {
  return {
    /** A new stamp for this transaction's changes of the tenant (`replace`: tokens from before it call for a new sync). */
    next: async (tenantId: number, replace = false): Promise<number> => (await firstRow(db, next, tenantId, replace))!.stamp,
  };
}
