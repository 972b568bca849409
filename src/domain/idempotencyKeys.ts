import { createHash } from 'node:crypto';
import type { RulesBroken } from './bulkItems.js';

/**
 * `Idempotency-Key`s (docs/rules.md#retries), of the public API's writes and of the administration
 * API's sandbox creates: how long one is remembered, a request's fingerprint, the refusal of a
 * key sent again with another request.
 */

/** How long an `Idempotency-Key` is remembered (docs/rules.md#retries). */
export const REMEMBERED_FOR_MS = 24 * 60 * 60 * 1000;

/** The fingerprint of a request: its kind and items, as they reach the store (a sandbox create: its body, members in one order). */
export function fingerprintOf(kind: string, items: readonly unknown[]): string {
  return createHash('sha256').update(kind).update('\n').update(JSON.stringify(items)).digest('base64url');
}

/** The same key sent with another request (another operation, or other items): `422` at the header, nothing written or made. */
export function keyReused(key: string): RulesBroken {
  const message = `Idempotency-Key ${JSON.stringify(key)} was sent with another request within a day: use a new key for a new request`;
  return { detail: `${message}; nothing was written.`, violations: [{ pointer: '/header/Idempotency-Key', message }] };
}
