import type { Db } from './db.js';

/**
 * The stamps of incremental sync (migration 5): each transaction that changes a tenant's
 * records takes the next number of the tenant's change counter and writes it on what it
 * changed. A transaction holds SQLite's one write lock, so stamps commit in their order.
 */
export function changeStamps(db: Db) {
  const next = db.prepare<[number], number>('UPDATE tenants SET sync_seq = sync_seq + 1 WHERE id = ? RETURNING sync_seq').pluck();
  const replaced = db.prepare<[number]>('UPDATE tenants SET resync_from = sync_seq WHERE id = ?');
  return {
    /** A new stamp for this transaction's changes of the tenant (`replace`: tokens from before it call for a new sync). */
    next(tenantId: number, replace = false): number {
      const stamp = next.get(tenantId)!;
      if (replace) replaced.run(tenantId);
      return stamp;
    },
  };
}
