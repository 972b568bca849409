import { openStore, StoreOpenError, StoreUnreachable } from '../store/openStore.js';
import type { Store } from '../store/store.js';
import { CommandFailure, EXIT_USAGE } from './errors.js';

/** What `--db` takes, for the help of every command. */
export const DB_HELP = 'the database: a SQLite file path (or sqlite:PATH), or postgres://USER@HOST:PORT/DB';

/**
 * Runs `work` on the store `--db` names, closed afterwards. With `mustExist`, a database that is
 * not there is an error instead of a new empty one (reading keys of a file that is not there is
 * a typo).
 */
export async function withStore<T>(location: string, mustExist: boolean, work: (store: Store) => Promise<T>): Promise<T> {
  let store: Store;
  try {
    store = await openStore(location, { role: 'command', mustExist });
  } catch (error) {
    throw commandFailureOf(error);
  }
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** A database that cannot be opened, as the CLI reports it: exit 2 when its server does not answer, else 1. */
export function commandFailureOf(error: unknown): unknown {
  if (error instanceof StoreUnreachable) return new CommandFailure(error.message, EXIT_USAGE);
  if (error instanceof StoreOpenError) return new CommandFailure(error.message);
  return error;
}
