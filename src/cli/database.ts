import { assertStoreExists, openStore, StoreMissing, StoreOpenError } from '../store/openStore.js';
import type { Store } from '../store/store.js';
import { CommandFailure, UsageFailure } from './errors.js';

/** What `--db` takes, for the help of every command. */
export const DB_HELP = 'the database: a SQLite file path (or sqlite:PATH)';

/** How a missing database is told: where it was looked for, and what creates one. */
export function missingDatabase(error: StoreMissing): UsageFailure {
  return new UsageFailure(`${error.message}; create one with 'compdata seed' or 'compdata import'`);
}

/**
 * Runs `work` on the store `--db` names, closed afterwards. Only `seed` and `import` pass
 * `create`: every other command refuses a database that is not there (exit 2, naming the
 * commands that create one) instead of making a new empty one of a typo.
 */
export async function withStore<T>(location: string, create: 'create' | 'mustExist', work: (store: Store) => Promise<T>): Promise<T> {
  let store: Store;
  try {
    store = openStore(location, { role: 'command', mustExist: create === 'mustExist' });
  } catch (error) {
    if (error instanceof StoreMissing) throw missingDatabase(error);
    if (error instanceof StoreOpenError) throw new CommandFailure(error.message);
    throw error;
  }
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** Refuses (exit 2) a `--db` that names no database, before a server (or its workers) starts. */
export function requireDatabase(location: string): void {
  try {
    assertStoreExists(location);
  } catch (error) {
    if (error instanceof StoreMissing) throw missingDatabase(error);
    if (error instanceof StoreOpenError) throw new CommandFailure(error.message);
    throw error;
  }
}
