import { existsSync } from 'node:fs';
import { isUnreachable } from './postgres/connection.js';
import { openPostgresStore } from './postgres/postgresStore.js';
import { DEFAULT_BUSY_TIMEOUT_MS, isDiskFull } from './sqlite/db.js';
import { openSqliteStore } from './sqlite/sqliteStore.js';
import { SchemaTooNew, type Store, type StoreLog } from './store.js';

export interface OpenStoreOptions {
  /** `server`: a long-lived process serving requests; `command`: a CLI command. */
  role: 'server' | 'command';
  /**
   * Refuse a database that does not exist yet ({@link StoreMissing}) instead of creating it
   * (SQLite: a PostgreSQL database is made by its server's administrator, never by compdata).
   */
  mustExist?: boolean;
  /** How long a write waits for another writer before it is refused. */
  busyTimeoutMs?: number;
  /** PostgreSQL: connections at most (`--db-pool`). */
  poolSize?: number;
  log?: StoreLog;
  /** For tests: the first writer thread dies inside its first transaction (SQLite). */
  writerExitsInFirstTransaction?: boolean;
}

/** The database named by `--db` cannot be opened: the message says which and why. */
export class StoreOpenError extends Error {}

/** The database server named by `--db` does not answer (a `StoreOpenError` the CLI reports with exit code 2). */
export class StoreUnreachable extends StoreOpenError {}

/**
 * The database named by `--db` is there but cannot be served by this build: a file that is not
 * a database, a file or directory that cannot be written, a schema newer than this build's
 * (a `StoreOpenError` the CLI reports with exit code 2: the command line names it).
 */
export class StoreUnusable extends StoreOpenError {}

/** Why SQLite cannot serve the file at `path`, when it is one of the {@link StoreUnusable} cases. */
function unusableSqlite(path: string, error: unknown): StoreUnusable | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof SchemaTooNew) return new StoreUnusable(`${path}: ${error.message}`, { cause: error });
  if (code === 'SQLITE_NOTADB') return new StoreUnusable(`${path} is not a database (SQLite: file is not a database)`, { cause: error });
  if (typeof code === 'string' && (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN') || code === 'SQLITE_PERM')) {
    return new StoreUnusable(
      `${path} cannot be opened for writing (a read-only file or directory?): compdata writes the file and its -wal and -shm files beside it`,
      { cause: error },
    );
  }
  return undefined;
}

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

const isPostgres = (location: string): boolean => /^postgres(ql)?:\/\//.test(location);

/**
 * Throws {@link StoreMissing} when the SQLite file `location` names does not exist (a
 * PostgreSQL database is found, or not, when it is connected to).
 */
export function assertStoreExists(location: string): void {
  if (isPostgres(location)) return;
  const path = sqlitePath(location);
  if (!existsSync(path)) throw new StoreMissing(path);
}

const SILENT: StoreLog = { warn() {}, error() {} };

/** PostgreSQL connections of a server, unless told (`--db-pool`); a CLI command needs two at most. */
export const DEFAULT_POOL_SIZE = 10;

/**
 * Builds the store named by `location` (the value of `--db`): `postgres://USER@HOST:PORT/DB`
 * (or `postgresql://`) for PostgreSQL; a file path, or `sqlite:PATH`, for SQLite. The one
 * place where an engine is chosen. Resolves once the database answers and its schema is up to date.
 */
export async function openStore(location: string, options: OpenStoreOptions): Promise<Store> {
  if (isPostgres(location)) return openPostgres(location, options);
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
    if (isDiskFull(error)) {
      throw new StoreOpenError(`cannot open database ${path}: the disk that holds it is full (SQLite needs room for the -shm file beside it); free space, then try again`, { cause: error });
    }
    throw unusableSqlite(path, error) ?? new StoreOpenError(`cannot open database ${path}: ${(error as Error).message}`, { cause: error });
  }
}

async function openPostgres(location: string, options: OpenStoreOptions): Promise<Store> {
  const shown = withoutPassword(location);
  try {
    return await openPostgresStore(location, {
      poolSize: options.poolSize ?? (options.role === 'server' ? DEFAULT_POOL_SIZE : 2),
      busyTimeoutMs: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS,
      log: options.log ?? SILENT,
    });
  } catch (error) {
    const message = `cannot open database ${shown}: ${(error as Error).message || String(error)}`;
    if (isUnreachable(error)) throw new StoreUnreachable(message, { cause: error });
    if (error instanceof SchemaTooNew) throw new StoreUnusable(`${shown}: ${error.message}`, { cause: error });
    throw new StoreOpenError(message, { cause: error });
  }
}

/** A connection string as it may be shown: a password in it is replaced by `***`. */
function withoutPassword(location: string): string {
  try {
    const url = new URL(location);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return 'postgres://…';
  }
}
