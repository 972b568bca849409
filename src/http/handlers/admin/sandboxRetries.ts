import type { components } from '../../../../generated/admin.js';
import type { AdminStore } from '../../../store/store.js';
import { problems } from '../../problems.js';
import { createLookup, openedCreate } from './keptCreates.js';

type Sandbox = components['schemas']['Sandbox'];

/**
 * The first answer of a create sent again with `idempotencyKey` within the public API's window
 * (docs/rules.md#retries); `undefined` when none is kept. The same key with another request is a
 * `422` at the header, nothing made.
 */
export async function replayedCreate(store: Pick<AdminStore, 'keptCreate'>, idempotencyKey: string, fingerprint: string): Promise<Sandbox | undefined> {
  const kept = await store.keptCreate(createLookup(idempotencyKey));
  if (!kept) return undefined;
  if (kept.fingerprint !== fingerprint) {
    const message = `Idempotency-Key ${JSON.stringify(idempotencyKey)} was sent with another create within a day: use a new key for a new request`;
    throw problems.unprocessable([{ pointer: '/header/Idempotency-Key', message }], `${message}; nothing was made.`);
  }
  return openedCreate(idempotencyKey, kept.answer);
}

