import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { components } from '../../../../generated/admin.js';
import { fingerprintOf } from '../../../domain/idempotencyKeys.js';
import type { KeptCreate } from '../../../store/vocabulary/adminShapes.js';

type Sandbox = components['schemas']['Sandbox'];

/**
 * A sandbox create's answer kept for its retries (docs/administration.md#retries-idempotency-key).
 * The answer holds the key's secret, which the database otherwise never stores: it is kept
 * sealed (AES-256-GCM) with a key derived from the `Idempotency-Key`, and found by another digest
 * of it, so that the database holds neither the Idempotency-Key nor the secret in the clear.
 */

const IV_BYTES = 12;
const TAG_BYTES = 16;

const digest = (purpose: string, idempotencyKey: string): Buffer => createHash('sha256').update(`compdata sandbox create ${purpose}\n`).update(idempotencyKey).digest();

/** The fingerprint of a create: its body, with the fields in one order. */
export function createFingerprint(body: Readonly<Record<string, unknown>>): string {
  const ordered = Object.fromEntries(Object.entries(body).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return fingerprintOf('createSandbox', [ordered]);
}

/** Where the answer of a create sent with `idempotencyKey` is kept. */
export const createLookup = (idempotencyKey: string): string => digest('lookup', idempotencyKey).toString('base64url');

/** The answer to keep for a create sent with `idempotencyKey`, sealed. */
export function keptCreate(idempotencyKey: string, fingerprint: string, answer: Sandbox, at: number): KeptCreate {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', digest('seal', idempotencyKey), iv);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(answer), 'utf8'), cipher.final()]);
  return { lookup: createLookup(idempotencyKey), fingerprint, answer: Buffer.concat([iv, cipher.getAuthTag(), sealed]), at };
}

/** The answer kept for a create sent with `idempotencyKey`, opened. */
export function openedCreate(idempotencyKey: string, kept: Buffer): Sandbox {
  const decipher = createDecipheriv('aes-256-gcm', digest('seal', idempotencyKey), kept.subarray(0, IV_BYTES));
  decipher.setAuthTag(kept.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return JSON.parse(Buffer.concat([decipher.update(kept.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8')) as Sandbox;
}
