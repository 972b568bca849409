import type { Store } from './store.js';
import { StoreUnavailable } from './vocabulary/storeErrors.js';

/**
 * The store with every operation's errors passed through `translate`: each engine turns its own
 * driver's errors (a lock timeout, a full disk, a server gone) into the store's classes
 * (`StoreBusy`, `StoreFull`, `StoreUnavailable`), which the HTTP layer and the CLI answer
 * without knowing the engine. `translate` returns any other error as it is. Once `close` has
 * been called, an operation's error the engine left as it was (the engine closed under it: a
 * request that outlived the server's shutdown timeout) is a `StoreUnavailable` (a 503 to retry
 * elsewhere, not a fault). The operations that answer at once (`servedBy`, `readServers`) and
 * what is not an operation (`requestsInProgress`) are kept as they are.
 */
export function translatingErrors(store: Store, translate: (error: unknown) => unknown): Store {
  const immediate = new Set<string>(['servedBy', 'readServers'] satisfies (keyof Store)[]);
  let closing = false;
  const storeError = (error: unknown) => {
    const translated = translate(error);
    return closing && translated === error ? new StoreUnavailable('The server is stopping: try again.', 1, { cause: error }) : translated;
  };
  const guarded = Object.fromEntries(
    Object.entries(store).map(([name, operation]) => [
      name,
      immediate.has(name) || typeof operation !== 'function' ? (operation as unknown) : async (...args: unknown[]) => {
        try {
          return await (operation as (...a: unknown[]) => Promise<unknown>)(...args);
        } catch (error) {
          throw storeError(error);
        }
      },
    ]),
  ) as unknown as Store;
  return {
    ...guarded,
    close: () => {
      closing = true;
      return guarded.close();
    },
  };
}
