import type { WriteSteps } from '../engine/transactionSteps.js';
import type { LeaseClaim } from '../vocabulary/leases.js';
import type { Db } from './db.js';

/**
 * The leases of background work (migration 20), on one connection: a claim is one statement, a
 * compare-and-set: the row is written when it is missing, held by the claimant, or ended.
 */
export function leaseSteps(db: Db): Pick<WriteSteps, 'takeLease' | 'releaseLease'> {
  const take = db.prepare<LeaseClaim>(
    `INSERT INTO leases (name, owner, expires_at) VALUES (@name, @owner, @until)
     ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
     WHERE leases.owner = excluded.owner OR leases.expires_at <= @now`,
  );
  const release = db.prepare<[string, string]>('DELETE FROM leases WHERE name = ? AND owner = ?');
  return {
    takeLease: (claim) => take.run(claim).changes > 0,
    releaseLease: (name, owner) => void release.run(name, owner),
  };
}
