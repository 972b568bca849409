import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The API keys of every engine (docs/rules.md#keys). A key reads `cdk_<id>_<secret>`: the id
 * (48 random bits, shown by `keys list`) finds the stored row, the secret (256 random bits) is
 * checked against its SHA-256 in constant time. Only the hash is stored. A fast hash is enough:
 * the secret has 256 bits of entropy, so there is nothing to brute-force that a slow hash would
 * protect.
 */
const KEY_PATTERN = /^cdk_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

/** Text shaped like a key anywhere in a string (to keep keys out of logs). */
export const KEY_TEXT = /cdk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}/g;

/** The SHA-256 of a key's secret, as stored. */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

/** A new key: its id, the key as shown once, and the hash to store. */
export function newKey(): { id: string; key: string; secretHash: Buffer } {
  const id = randomBytes(6).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { id, key: `cdk_${id}_${secret}`, secretHash: hashSecret(secret) };
}

/** The id and secret of a presented key, or `undefined` when it is not shaped like one. */
export function parseKey(presented: string | undefined): { id: string; secret: string } | undefined {
  const match = presented === undefined ? null : KEY_PATTERN.exec(presented);
  return match ? { id: match[1]!, secret: match[2]! } : undefined;
}

/** The id of a key given whole or as its id (`keys revoke`). */
export const keyIdOf = (keyOrId: string): string => parseKey(keyOrId)?.id ?? keyOrId;

// Compared against when the id is unknown, so that both paths do the same work.
const DECOY = hashSecret('');

/** Whether `secret` matches the stored hash (`undefined`: no such key; the same work is done). */
export function secretMatches(secret: string, storedHash: Buffer | undefined): boolean {
  const equal = timingSafeEqual(hashSecret(secret), storedHash ?? DECOY);
  return storedHash !== undefined && equal;
}
