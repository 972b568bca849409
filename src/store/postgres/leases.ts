import type { WriteSteps } from '../engine/transactionSteps.js';
import type { LeaseClaim } from '../vocabulary/leases.js';
import { run, statement, type Queryable } from './connection.js';

// One statement, a compare-and-set: the row is written when it is missing, held by the
// claimant, or ended. Two claims at once: the second waits for the first's row, then sees it.
const take = statement<[string, string, number, number]>(
  `INSERT INTO leases (name, owner, expires_at) VALUES ($1, $2, $4)
   ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
   WHERE leases.owner = excluded.owner OR leases.expires_at <= $3`,
);
const release = statement<[string, string]>('DELETE FROM leases WHERE name = $1 AND owner = $2');

/** The leases of background work (migration 24), inside the caller's transaction. */
export function leaseSteps(db: Queryable): Pick<WriteSteps, 'takeLease' | 'releaseLease'> {
  return {
    takeLease: async ({ name, owner, now, until }: LeaseClaim) => (await run(db, take, name, owner, now, until)) > 0,
    releaseLease: async (name, owner) => void (await run(db, release, name, owner)),
  };
}
