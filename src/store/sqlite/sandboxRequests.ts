import type { WriteSteps } from '../engine/transactionSteps.js';
import type { KeptCreate } from '../vocabulary/adminShapes.js';
import type { Db } from './db.js';

/** The sandboxes counted, and the answers kept for a create's retries (migration 22), on one connection. */
export function sandboxRequestSteps(db: Db): Pick<WriteSteps, 'tenantCreatedAt' | 'countSandboxes' | 'keepCreate'> {
  const createdAt = db.prepare<[number], string>('SELECT created_at FROM tenants WHERE id = ?').pluck();
  const count = db.prepare<[], number>('SELECT count(*) FROM sandbox_recipes').pluck();
  const keep = db.prepare<[string, number, string, Buffer, number]>(
    'INSERT INTO sandbox_requests (lookup, tenant_id, fingerprint, answer, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (lookup) DO NOTHING',
  );
  const forget = db.prepare<[number]>('DELETE FROM sandbox_requests WHERE created_at < ?');
  return {
    tenantCreatedAt: (tenantId) => createdAt.get(tenantId)!,
    // The transaction holds the database's one write lock: no other counts meanwhile.
    countSandboxes: () => count.get()!,
    keepCreate(tenantId, { lookup, fingerprint, answer, at }: KeptCreate, since) {
      forget.run(since);
      return keep.run(lookup, tenantId, fingerprint, answer, at).changes === 1;
    },
  };
}
