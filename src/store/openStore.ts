import { existsSync } from 'node:fs';
import { openSqliteStore } from './sqlite/sqliteStore.js';
import type { Store, StoreLog } from './store.js';

export interface OpenStoreOptions {
  /** `server`: a long-lived process serving requests; `command`: a CLI command. */
  role: 'server' | 'command';
  /** Refuse a database that does not exist yet ({@link StoreMissing}) instead of creating it. */
  mustExist?: boolean;
  /** How long a write waits for another writer before it is refused. */
  busyTimeoutMs?: number;
  log?: StoreLog;
  /** For tests: the first writer thread dies inside its first transaction. */
  writerExitsInFirstTransaction?: boolean;
}

/** The database named by `--db` cannot be opened: the message says which and why. */
export class StoreOpenError extends Error {}

/**
 * The database named by `--db` does not exist (and the caller did not ask to create it): only
 * the commands that load data (`seed`, `import`) create one, so that a typo in `--db` is never
 * served or given keys as an empty database.
 */
export class StoreMissing extends StoreOpenError {
  constructor(readonly path: string) {
    super(`no database at ${path}`);
  }
}

/** The SQLite file that `location` names. */
function sqlitePath(location: string): string {
  const path = location.startsWith('sqlite:') ? location.slice('sqlite:'.length) : location;
  if (path.length === 0) throw new StoreOpenError('no database path given');
  return path;
}

/** Throws {@link StoreMissing} when the database `location` names does not exist. */
export function assertStoreExists(location: string): void {
  const path = sqlitePath(location);
  if (!existsSync(path)) throw new StoreMissing(path);
}

const SILENT: StoreLog = { warn() {}, error() {} };

/**
 * Builds the store named by `location` (the value of `--db`): a file path, or `sqlite:PATH`.
 * The one place where an engine is chosen.
 */
export function openStore(location: string, options: OpenStoreOptions): Store {
  const path = sqlitePath(location);
  if (options.mustExist) assertStoreExists(location);
  try {
    return openSqliteStore(path, {
      role: options.role,
      busyTimeoutMs: options.busyTimeoutMs,
      log: options.log ?? SILENT,
      writerExitsInFirstTransaction: options.writerExitsInFirstTransaction,
    });
  } catch (error) {
    throw new StoreOpenError(`cannot open database ${path}: ${(error as Error).message}`, { cause: error });
  }
}
