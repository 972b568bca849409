import { openStore, StoreOpenError } from '../store/openStore.js';
import type { Store } from '../store/store.js';
import { CommandFailure } from './errors.js';

/** What `--db` takes, for the help of every command. */
export const DB_HELP = 'the database: a SQLite file path (or sqlite:PATH)';

/**
 * Runs `work` on the store `--db` names, closed afterwards. With `mustExist`, a database that is
 * not there is an error instead of a new empty one (reading keys of a file that is not there is
 * a typo).
 */
export async function withStore<T>(location: string, mustExist: boolean, work: (store: Store) => Promise<T>): Promise<T> {
  let store: Store;
  try {
    store = openStore(location, { role: 'command', mustExist });
  } catch (error) {
    if (error instanceof StoreOpenError) throw new CommandFailure(error.message);
    throw error;
  }
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}
