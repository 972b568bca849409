import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from './db.js';
import type { Tenant } from './tenants.js';

/**
 * API keys (D1). A key reads `cdk_<id>_<secret>`: the id (48 random bits, shown by `keys list`)
 * finds the row, the secret (256 random bits) is checked against its SHA-256 in constant time.
 * Only the hash is stored. A fast hash is enough: the secret has 256 bits of entropy, so there
 * is nothing to brute-force that a slow hash would protect.
 */
const KEY_PATTERN = /^cdk_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

/** Text shaped like a key anywhere in a string (to keep keys out of logs). */
export const KEY_TEXT = /cdk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}/g;

export interface KeyInfo {
  id: string;
  tenant: string;
  created_at: string;
  state: 'active' | 'revoked';
}

/** What a request's key grants: the tenant, and what the read path needs of it. */
export interface Principal {
  tenantId: number;
  /** The dimension fields of a record whose user has no group (see migrations). */
  emptyFragment: string;
}

function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

export function createKey(db: Db, tenant: Tenant): { id: string; key: string } {
  const id = randomBytes(6).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  db.prepare('INSERT INTO api_keys (id, tenant_id, secret_hash, created_at) VALUES (?, ?, ?, ?)').run(
    id,
    tenant.id,
    hashSecret(secret),
    new Date().toISOString(),
  );
  return { id, key: `cdk_${id}_${secret}` };
}

/**
 * Revokes a key given as the full key or as its id. Returns false when no active key matched.
 */
export function revokeKey(db: Db, keyOrId: string): boolean {
  const id = KEY_PATTERN.exec(keyOrId)?.[1] ?? keyOrId;
  const result = db
    .prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL')
    .run(new Date().toISOString(), id);
  return result.changes === 1;
}

export function listKeys(db: Db, tenantName?: string): KeyInfo[] {
  const rows = db
    .prepare(
      `SELECT k.id, t.name AS tenant, k.created_at,
              CASE WHEN k.revoked_at IS NULL THEN 'active' ELSE 'revoked' END AS state
       FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
       WHERE @tenant IS NULL OR t.name = @tenant
       ORDER BY k.created_at, k.id`,
    )
    .all({ tenant: tenantName ?? null });
  return rows as KeyInfo[];
}

/**
 * Prepares the per-request key check once. It reads the database on every call, so a
 * revocation by another process takes effect on the next request (D1, D7).
 */
export function keyAuthenticator(db: Db): (presented: string | undefined) => Principal | undefined {
  const lookup = db
    .prepare(
      `SELECT k.secret_hash, k.revoked_at, t.id AS tenantId, t.empty_fragment AS emptyFragment
       FROM api_keys k JOIN tenants t ON t.id = k.tenant_id WHERE k.id = ?`,
    )
    .raw();
  // Compared against when the id is unknown, so that both paths do the same work.
  const decoy = hashSecret('');
  return (presented) => {
    const match = presented === undefined ? null : KEY_PATTERN.exec(presented);
    if (!match) return undefined;
    const row = lookup.get(match[1]) as [Buffer, string | null, number, string] | undefined;
    const equal = timingSafeEqual(hashSecret(match[2]!), row?.[0] ?? decoy);
    if (!row || !equal || row[1] !== null) return undefined;
    return { tenantId: row[2], emptyFragment: row[3] };
  };
}
