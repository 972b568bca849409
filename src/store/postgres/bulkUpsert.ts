import type pg from 'pg';
import type { Upsert } from '../../domain/bulkItems.js';
import type { BulkOutcome } from '../store.js';

/** `PUT /v1/users/groups/bulk` on PostgreSQL: not written yet. */
export async function bulkUpsert(_pool: pg.Pool, _tenantId: number, _items: readonly Upsert[], _busyTimeoutMs: number): Promise<BulkOutcome> {
  throw new Error('the bulk upsert is not written yet on PostgreSQL');
}
