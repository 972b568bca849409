import { keyIdOf, newKey, parseKey, secretMatches } from '../apiKeys.js';
import type { KeyInfo, Tenant } from '../store.js';
import { versionText } from './dataVersion.js';
import type { Db } from './db.js';

/** What a key grants on this engine: the tenant, and what the read path needs of it. */
export interface SqlitePrincipal {
  readonly tenantId: number;
  /** The dimension fields of a record whose user has no group (see migrations.ts). */
  readonly emptyFragment: string;
  /** The version of the tenant's data when the key was looked up (dataVersion.ts). */
  readonly dataVersion: string;
}

/** The statements of the API keys (docs/rules.md#keys), prepared once per connection. */
export function keyStatements(db: Db) {
  const insert = db.prepare<[string, number, Buffer, string]>(
    'INSERT INTO api_keys (id, tenant_id, secret_hash, created_at) VALUES (?, ?, ?, ?)',
  );
  const revoke = db.prepare<[string, string]>('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const list = db.prepare<{ tenant: string | null }, KeyInfo>(
    `SELECT k.id, t.name AS tenant, k.created_at,
            CASE WHEN k.revoked_at IS NULL THEN 'active' ELSE 'revoked' END AS state
     FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
     WHERE @tenant IS NULL OR t.name = @tenant
     ORDER BY k.created_at, k.id`,
  );
  // Read on every request, so that a revocation by another process counts at once (docs/rules.md#keys).
  const lookup = db
    .prepare<[string], [Buffer, string | null, number, string, string]>(
      `SELECT k.secret_hash, k.revoked_at, t.id, t.empty_fragment, CAST(t.data_version AS TEXT)
       FROM api_keys k JOIN tenants t ON t.id = k.tenant_id WHERE k.id = ?`,
    )
    .raw();

  return {
    create(tenant: Tenant): { id: string; key: string } {
      const { id, key, secretHash } = newKey();
      insert.run(id, tenant.id, secretHash, new Date().toISOString());
      return { id, key };
    },
    revoke: (keyOrId: string): boolean => revoke.run(new Date().toISOString(), keyIdOf(keyOrId)).changes === 1,
    list: (tenantName?: string): KeyInfo[] => list.all({ tenant: tenantName ?? null }),
    authenticate(presented: string | undefined): SqlitePrincipal | undefined {
      const parsed = parseKey(presented);
      if (!parsed) return undefined;
      const row = lookup.get(parsed.id);
      if (!secretMatches(parsed.secret, row?.[0]) || !row || row[1] !== null) return undefined;
      return { tenantId: row[2], emptyFragment: row[3], dataVersion: versionText(row[2], row[4]) };
    },
  };
}
