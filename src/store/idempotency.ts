import { createHash } from 'node:crypto';
import type { RulesBroken } from '../domain/bulkItems.js';

type Awaitable<T> = T | Promise<T>;

/** How long an `Idempotency-Key` is remembered (docs/rules.md#retries). */
export const REMEMBERED_FOR_MS = 24 * 60 * 60 * 1000;

/** A write's `Idempotency-Key`, what it was sent with, and when it arrived (milliseconds since the epoch). */
export interface IdempotentRequest {
  readonly key: string;
  /** The operation and its items, hashed: the same key sent with anything else is refused. */
  readonly fingerprint: string;
  readonly at: number;
}

/** What the tenant's keys remember, inside a write transaction (the tenant's writers are serialised). */
export interface IdempotencySteps {
  /** The request remembered under `key` since `since` (older ones are forgotten first), if any. */
  recall(key: string, since: number): Awaitable<{ fingerprint: string; written: string } | undefined>;
  /** Remembers what the request wrote (the JSON of its outcome), in the transaction that writes it. */
  remember(request: IdempotentRequest, written: string): Awaitable<void>;
}

/** The fingerprint of a write: its kind and items, as they reach the store. */
export function fingerprintOf(kind: string, items: readonly unknown[]): string {
  return createHash('sha256').update(kind).update('\n').update(JSON.stringify(items)).digest('base64url');
}

/** The same key sent with another request (another operation, or other items): `422` at the header, nothing written. */
export function keyReused(key: string): RulesBroken {
  const message = `Idempotency-Key ${JSON.stringify(key)} was sent with another request within a day: use a new key for a new request`;
  return { detail: `${message}; nothing was written.`, violations: [{ pointer: '/header/Idempotency-Key', message }] };
}
