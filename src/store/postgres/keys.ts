import { keyIdOf, newKey, parseKey, secretMatches } from '../apiKeys.js';
import { versionText } from '../sqlite/dataVersion.js';
import type { KeyInfo, Tenant } from '../store.js';
import { firstRow, rowsOf, run, statement, type Queryable } from './connection.js';

/** What a key grants on this engine: the tenant, and what the read path needs of it. */
export interface PostgresPrincipal {
  readonly tenantId: number;
  /** The dimension fields of a record whose user has no group (see migrations.ts). */
  readonly emptyFragment: string;
  /** The version of the tenant's data when the key was looked up. */
  readonly dataVersion: string;
}

const insert = statement<[string, number, Buffer, string]>('INSERT INTO api_keys (id, tenant_id, secret_hash, created_at) VALUES ($1, $2, $3, $4)');
const revoke = statement<[string, string]>('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL');
const list = statement<[string | null], KeyInfo>(
  `SELECT k.id, t.name AS tenant, k.created_at,
          CASE WHEN k.revoked_at IS NULL THEN 'active' ELSE 'revoked' END AS state
   FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
   WHERE $1::text IS NULL OR t.name = $1
   ORDER BY k.created_at, k.id`,
);
// Read on every request, so that a revocation by another process counts at once (docs/rules.md#keys).
const lookup = statement<[string], { secret_hash: Buffer; revoked_at: string | null; tenant_id: number; empty_fragment: string; data_version: string }>(
  `SELECT k.secret_hash, k.revoked_at, t.id AS tenant_id, t.empty_fragment, t.data_version::text AS data_version
   FROM api_keys k JOIN tenants t ON t.id = k.tenant_id WHERE k.id = $1`,
);

/** The API keys (docs/rules.md#keys) on this engine; `api_keys` is part of the directory (see migrations.ts). */
export const keyStatements = {
  async create(db: Queryable, tenant: Tenant): Promise<{ id: string; key: string }> {
    const { id, key, secretHash } = newKey();
    await run(db, insert, id, tenant.id, secretHash, new Date().toISOString());
    return { id, key };
  },
  revoke: async (db: Queryable, keyOrId: string): Promise<boolean> => (await run(db, revoke, new Date().toISOString(), keyIdOf(keyOrId))) === 1,
  list: (db: Queryable, tenantName?: string): Promise<KeyInfo[]> => rowsOf(db, list, tenantName ?? null),
  async authenticate(db: Queryable, presented: string | undefined): Promise<PostgresPrincipal | undefined> {
    const parsed = parseKey(presented);
    if (!parsed) return undefined;
    const row = await firstRow(db, lookup, parsed.id);
    if (!secretMatches(parsed.secret, row?.secret_hash) || !row || row.revoked_at !== null) return undefined;
    return { tenantId: row.tenant_id, emptyFragment: row.empty_fragment, dataVersion: versionText(row.tenant_id, row.data_version) };
  },
};
