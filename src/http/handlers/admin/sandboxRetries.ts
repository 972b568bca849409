import type { components } from '../../../../generated/admin.js';
import { keyReused } from '../../../domain/idempotencyKeys.js';
import type { AdminStore } from '../../../store/store.js';
import { rulesBrokenProblem } from '../../writeOutcome.js';
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
  if (kept.fingerprint !== fingerprint) throw rulesBrokenProblem(keyReused(idempotencyKey));
  return openedCreate(idempotencyKey, kept.answer);
}

