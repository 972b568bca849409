import type { KeySteps, StoredKey } from '../engine/readSteps.js';
import type { NewKey } from '../engine/transactionSteps.js';
import type { KeyInfo } from '../vocabulary/tenancy.js';
import type { Db } from './db.js';

/** The statements of the API keys, prepared once per connection (the rules: ../apiKeys.ts, ../storeOver.ts). */
export function keySteps(db: Db) {
  const revoke = db.prepare<[string, string]>('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const list = db.prepare<{ tenant: string | null }, KeyInfo>(
    `SELECT k.id, t.name AS tenant, k.created_at,
            CASE WHEN k.revoked_at IS NULL THEN 'active' ELSE 'revoked' END AS state, k.scope
     FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
     WHERE @tenant IS NULL OR t.name = @tenant
     ORDER BY k.created_at, k.id`,
  );
  const lookup = db.prepare<[string], StoredKey>(
    `SELECT k.secret_hash AS secretHash, k.revoked_at IS NOT NULL AS revoked, t.id AS tenantId,
            t.empty_fragment AS emptyFragment, CAST(t.data_version AS TEXT) AS dataVersion, k.scope
     FROM api_keys k JOIN tenants t ON t.id = k.tenant_id WHERE k.id = ?`,
  );
  return {
    lookup: (id: string): StoredKey | undefined => {
      const row = lookup.get(id);
      return row && { ...row, revoked: Boolean(row.revoked) };
    },
    revoke: (id: string, revokedAt: string) => revoke.run(revokedAt, id).changes === 1,
    list: (tenantName: string | undefined) => list.all({ tenant: tenantName ?? null }),
  } satisfies KeySteps;
}

/** The statement that stores a new key (inside a write transaction). */
export function keyInsert(db: Db) {
  const insert = db.prepare<[string, number, Buffer, string, string]>('INSERT INTO api_keys (id, tenant_id, secret_hash, created_at, scope) VALUES (?, ?, ?, ?, ?)');
  return (key: NewKey): void => void insert.run(key.id, key.tenantId, key.secretHash, key.createdAt, key.scope);
}
