import { BoundedMap } from '../../domain/boundedMap.js';

/** Key checks remembered at most: past this many key ids, the memory starts again empty. */
const MAX_REMEMBERED = 1024;

/**
 * What the store's key lookups found, remembered between requests while the database says that
 * nothing has been committed since (docs/rules.md#keys): a key created, revoked or deleted, or a
 * tenant's data changed (its version is part of what a key grants), by this process or any
 * other, changes `changeCounter`, and the next check forgets everything and looks again. A
 * key's entry holds the stored SHA-256 of its secret, never the secret; an id no key has is
 * remembered as such, so a wrong key costs no lookup either. Both are compared with the same
 * work as a lookup's (the hash of the presented secret, compared in constant time).
 */
export interface RememberedKeys<G> {
  /** What is remembered of key `id`: its stored hash and grant, `null` for no such key, `undefined` when not remembered. */
  recall(id: string): KnownKey<G> | null | undefined;
  /** Remembers the outcome of a lookup that began when the counter read `counter` (see {@link RememberedKeys.counter}). */
  remember(id: string, counter: number, found: KnownKey<G> | null): void;
  /** The counter now; read before a lookup, so that a lookup racing a commit is remembered as older than it. */
  counter(): number;
  /** Forgets everything: a commit on the connection whose counter this is (it does not count its own). */
  forget(): void;
}

/** A key as its lookup found it: the stored hash of its secret, and what it grants (`undefined`: revoked). */
export interface KnownKey<G> {
  readonly secretHash: Buffer;
  readonly grant: G | undefined;
}

export function rememberedKeys<G>(changeCounter: () => number): RememberedKeys<G> {
  const entries = new BoundedMap<string, KnownKey<G> | null>(MAX_REMEMBERED);
  let validAt: number | undefined;
  return {
    counter: changeCounter,
    recall(id) {
      const now = changeCounter();
      if (now !== validAt) {
        entries.clear();
        validAt = now;
        return undefined;
      }
      return entries.get(id);
    },
    remember(id, counter, found) {
      if (counter !== validAt) return; // something was committed meanwhile: looked up again next time
      entries.set(id, found);
    },
    forget() {
      entries.clear();
      validAt = undefined;
    },
  };
}
