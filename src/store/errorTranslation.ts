import type { Store } from './store.js';

/**
 * The store with every operation's errors passed through `translate`: each engine turns its own
 * driver's errors (a lock timeout, a full disk, a server gone) into the store's classes
 * (`StoreBusy`, `StoreFull`, `StoreUnavailable`), which the HTTP layer and the CLI answer
 * without knowing the engine. `translate` returns any other error as it is. The operations that
 * answer at once (`servedBy`, `readServers`) and what is not an operation (`requestsInProgress`)
 * are kept as they are.
 */
export function translatingErrors(store: Store, translate: (error: unknown) => unknown): Store {
  const immediate = new Set<string>(['servedBy', 'readServers'] satisfies (keyof Store)[]);
  const guarded = Object.entries(store).map(([name, operation]) => [
    name,
    immediate.has(name) || typeof operation !== 'function' ? (operation as unknown) : async (...args: unknown[]) => {
      try {
        return await (operation as (...a: unknown[]) => Promise<unknown>)(...args);
      } catch (error) {
        throw translate(error);
      }
    },
  ]);
  return Object.fromEntries(guarded) as unknown as Store;
}
