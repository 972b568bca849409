import type { IdempotencySteps } from '../engine/apiWriteSteps.js';
import { firstRow, run, statement, type Queryable } from './connection.js';

const forget = statement<[number, number]>('DELETE FROM idempotency_keys WHERE tenant_id = $1 AND created_at < $2');
const recall = statement<[number, string], { fingerprint: string; written: string }>(
  'SELECT fingerprint, written FROM idempotency_keys WHERE tenant_id = $1 AND key = $2',
);
const remember = statement<[number, string, string, string, number]>(
  'INSERT INTO idempotency_keys (tenant_id, key, fingerprint, written, created_at) VALUES ($1, $2, $3, $4, $5)',
);

/** The `Idempotency-Key`s a tenant sent (../../domain/idempotencyKeys.ts) on PostgreSQL. */
export function idempotencySteps(db: Queryable, tenantId: number): IdempotencySteps {
  return {
    async recall(key, since) {
      await run(db, forget, tenantId, since);
      return firstRow(db, recall, tenantId, key);
    },
    remember: async (request, written) => void (await run(db, remember, tenantId, request.key, request.fingerprint, written, request.at)),
  };
}
