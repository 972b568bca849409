import type { KeySteps, StoredKey } from '../engine/readSteps.js';
import type { NewKey } from '../engine/transactionSteps.js';
import type { KeyInfo } from '../vocabulary/tenancy.js';
import { firstRow, rowsOf, run, statement, type Queryable } from './connection.js';
import { BoundedMap } from '../../domain/boundedMap.js';

const insert = statement<[string, number, Buffer, string, string]>('INSERT INTO api_keys (id, tenant_id, secret_hash, created_at, scope) VALUES ($1, $2, $3, $4, $5)');
const revoke = statement<[string, string]>('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL');
const list = statement<[string | null], KeyInfo>(
  `SELECT k.id, t.name AS tenant, k.created_at,
          CASE WHEN k.revoked_at IS NULL THEN 'active' ELSE 'revoked' END AS state, k.scope
   FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
   WHERE $1::text IS NULL OR t.name = $1
   ORDER BY k.created_at, k.id`,
);
const lookup = statement<[string], Omit<StoredKey, 'emptyFragment' | 'dataVersion'>>(
  `SELECT secret_hash AS "secretHash", revoked_at IS NOT NULL AS revoked, tenant_id AS "tenantId", scope FROM api_keys WHERE id = $1`,
);
/** Read after the key, by its tenant: on Citus the key is in the directory and the state on the tenant's node (migrations.ts). */
const tenantState = statement<[number], Pick<StoredKey, 'emptyFragment' | 'dataVersion'>>(
  `SELECT empty_fragment AS "emptyFragment", data_version::text AS "dataVersion" FROM tenant_state WHERE tenant_id = $1`,
);
/**
 * The key `$1` and its tenant's state at once, when its tenant is known to be `$2`: named, the
 * tenant routes the statement to its node on Citus as {@link tenantState} does. No row when the
 * key is not (or no longer) a key of that tenant.
 */
const lookupOfTenant = statement<[string, number], StoredKey>(
  `SELECT k.secret_hash AS "secretHash", k.revoked_at IS NOT NULL AS revoked, k.tenant_id AS "tenantId", k.scope,
          s.empty_fragment AS "emptyFragment", s.data_version::text AS "dataVersion"
   FROM api_keys k JOIN tenant_state s ON s.tenant_id = $2
   WHERE k.id = $1 AND k.tenant_id = $2`,
);

/** Key ids whose tenants are remembered at most: past this many, the memory starts again empty. */
const MAX_TENANTS_KNOWN = 4096;

/**
 * The key `id` and what a read of its tenant needs at once. A key never changes tenant, so once
 * its tenant is known (from an earlier lookup in this process), one statement reads the key and
 * its tenant's state together, every field read afresh as in the first lookup; otherwise, or
 * when that finds no row (the key deleted, or an id made again for another tenant), two: the
 * key's, then its tenant's. One round trip to the database per request instead of two.
 */
function keyLookup(db: Queryable): (id: string) => Promise<StoredKey | undefined> {
  const tenantOf = new BoundedMap<string, number>(MAX_TENANTS_KNOWN);
  return async (id) => {
    const known = tenantOf.get(id);
    const found = known === undefined ? undefined : await firstRow(db, lookupOfTenant, id, known);
    if (found) return found;
    const key = await firstRow(db, lookup, id);
    if (!key) {
      tenantOf.delete(id);
      return undefined;
    }
    tenantOf.set(id, key.tenantId);
    return { ...key, ...(await firstRow(db, tenantState, key.tenantId))! };
  };
}

/** The statements of the API keys (the rules: ../apiKeys.ts, ../storeOver.ts); `api_keys` is part of the directory (see migrations.ts). */
export function keySteps(db: Queryable): KeySteps {
  return {
    lookup: keyLookup(db),
    revoke: async (id, revokedAt) => (await run(db, revoke, revokedAt, id)) === 1,
    list: (tenantName) => rowsOf(db, list, tenantName ?? null),
  };
}

/** The statement that stores a new key (inside a write transaction). */
export function keyInsert(db: Queryable) {
  return async (key: NewKey): Promise<void> => void (await run(db, insert, key.id, key.tenantId, key.secretHash, key.createdAt, key.scope));
}
