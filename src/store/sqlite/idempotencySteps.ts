import type { IdempotencySteps } from '../engine/apiWriteSteps.js';
import type { Db } from './db.js';

/** The `Idempotency-Key`s a tenant sent (../../domain/idempotencyKeys.ts) on SQLite, prepared once per connection. */
export function idempotencySteps(db: Db): (tenantId: number) => IdempotencySteps {
  const forget = db.prepare<[number, number]>('DELETE FROM idempotency_keys WHERE tenant_id = ? AND created_at < ?');
  const recall = db.prepare<[number, string], { fingerprint: string; written: string }>(
    'SELECT fingerprint, written FROM idempotency_keys WHERE tenant_id = ? AND key = ?',
  );
  const remember = db.prepare<[number, string, string, string, number]>(
    'INSERT INTO idempotency_keys (tenant_id, key, fingerprint, written, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  return (tenantId) => ({
    recall(key, since) {
      forget.run(tenantId, since);
      return recall.get(tenantId, key);
    },
    remember: (request, written) => void remember.run(tenantId, request.key, request.fingerprint, written, request.at),
  });
}
