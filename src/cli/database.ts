import { assertStoreExists, openStore } from '../store/openStore.js';
import { StoreMissing, StoreOpenError, StoreUnreachable, StoreUnusable } from '../store/vocabulary/storeErrors.js';
import type { AdminStore, Store } from '../store/store.js';
import { CommandFailure, UsageFailure } from './errors.js';

/** What `--db` takes, for the help of every command. */
export const DB_HELP = 'the database: a SQLite file path (or sqlite:PATH), or postgres://USER@HOST:PORT/DB';

/** How a missing database is told: where it was looked for, and what creates one. */
function missingDatabase(error: StoreMissing): UsageFailure {
  return new UsageFailure(`${error.message}; create one with 'compdata seed' or 'compdata import'`);
}

/**
 * Runs `work` on the store `--db` names, closed afterwards. Only `seed` and `import` pass
 * `create`: every other command refuses a database that is not there (exit 2, naming the
 * commands that create one) instead of making a new empty one of a typo.
 */
export async function withStore<T>(location: string, create: 'create' | 'mustExist', work: (store: AdminStore) => Promise<T>): Promise<T> {
  let store: Store;
  try {
    store = await openStore(location, { role: 'command', mustExist: create === 'mustExist' });
  } catch (error) {
    throw commandFailureOf(error);
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
    throw commandFailureOf(error);
  }
}

/**
 * A database that cannot be opened, as the CLI reports it: exit 2 when it is not there, its
 * server does not answer, or it cannot be served (not a database, not writable, a newer schema:
 * the command line names it), 1 when it cannot be opened otherwise.
 */
export function commandFailureOf(error: unknown): unknown {
  if (error instanceof StoreMissing) return missingDatabase(error);
  if (error instanceof StoreUnreachable || error instanceof StoreUnusable) return new UsageFailure(error.message);
  if (error instanceof StoreOpenError) return new CommandFailure(error.message);
  return error;
}
