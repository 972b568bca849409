import type { Db } from './db.js';

/**
 * The stamps of incremental sync (migration 5): each transaction that changes a tenant's
 * records takes the next number of the tenant's change counter and writes it on what it
 * changed. A transaction holds SQLite's one write lock, so stamps commit in their order.
 *
 * Each stamp is dated in the same transaction (migration 8, the v2 reads' modification times):
 * the clock's time, or one millisecond past the tenant's last one, so that times increase with
 * stamps whatever the clocks of the processes that write.
 */
/**
 * The time of stamp `stamp` of tenant `tenant` (SQL expressions), as a statement that writes the
 * stamp on a row writes it beside (`changed_at`, migration 8): a v2 read then joins no table.
 */
export const stampTime = (tenant: string, stamp: string) => `(SELECT at FROM stamp_times WHERE tenant_id = ${tenant} AND stamp = ${stamp})`;

export function changeStamps(db: Db) {
  const next = db.prepare<[number], number>('UPDATE tenants SET sync_seq = sync_seq + 1 WHERE id = ? RETURNING sync_seq').pluck();
  const replaced = db.prepare<[number]>('UPDATE tenants SET resync_from = sync_seq WHERE id = ?');
  const dated = db.prepare<{ tenant: number; stamp: number }>(
    `INSERT INTO stamp_times (tenant_id, stamp, at)
     SELECT @tenant, @stamp, max(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
       ifnull((SELECT strftime('%Y-%m-%dT%H:%M:%fZ', at, '+0.001 seconds') FROM stamp_times WHERE tenant_id = @tenant ORDER BY stamp DESC LIMIT 1), ''))`,
  );
  return {
    /** A new stamp for this transaction's changes of the tenant (`replace`: tokens from before it call for a new sync). */
    next(tenantId: number, replace = false): number {
      const stamp = next.get(tenantId)!;
      dated.run({ tenant: tenantId, stamp });
      if (replace) replaced.run(tenantId);
      return stamp;
    },
  };
}
