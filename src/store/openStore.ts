import { existsSync } from 'node:fs';
import { DEFAULT_READ_ROUTING, type ReadRoutingOptions } from './requests/readRouting.js';

/** How reads are spread over replicas unless told (`--replica-wait`, `--replica-max-lag`). */
export { DEFAULT_READ_ROUTING } from './requests/readRouting.js';
import { sharedRequestCount } from './vocabulary/requestsInProgress.js';
import { DEFAULT_WRITE_WAIT_MS, StoreMissing, StoreOpenError, StoreUnusable } from './vocabulary/storeErrors.js';
import type { Store } from './store.js';
import type { StoreLog } from './vocabulary/storeLog.js';

export interface OpenStoreOptions {
  /** `server`: a long-lived process serving requests; `command`: a CLI command. */
  role: 'server' | 'command';
  /**
   * Refuse a database that does not exist yet ({@link StoreMissing}) instead of creating it
   * (SQLite: a PostgreSQL database is made by its server's administrator, never by compdata).
   */
  mustExist?: boolean;
  /** How long a write waits for another writer before it is refused (default {@link DEFAULT_WRITE_WAIT_MS}). */
  busyTimeoutMs?: number;
  /** PostgreSQL: connections at most (`--db-pool`), to the primary and to each replica. */
  poolSize?: number;
  /** PostgreSQL: read replicas of the database (`--db-replica`, docs/scaling.md). */
  replicas?: readonly string[];
  /** How reads are spread over the replicas (`--replica-wait`, `--replica-max-lag`). */
  routing?: Partial<ReadRoutingOptions>;
  log?: StoreLog;
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
 * place where an engine is chosen. Resolves once the database answers and its schema is up to
 * date; rejects with a `StoreOpenError` that says why otherwise.
 */
export async function openStore(location: string, options: OpenStoreOptions): Promise<Store> {
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_WRITE_WAIT_MS;
  const log = options.log ?? SILENT;
  // Counted by the server that serves the store; PostgreSQL's import thread gives way to the requests.
  const requestsInProgress = sharedRequestCount();
  const storeOptions = { routing: { ...DEFAULT_READ_ROUTING, ...options.routing }, log, requestsInProgress };
  // The store's code loads when a store is opened: a command that opens none (`--help`, a usage error) starts without it.
  const { storeOver } = await import('./storeOver.js');
  if (isPostgres(location)) {
    const poolSize = options.poolSize ?? (options.role === 'server' ? DEFAULT_POOL_SIZE : 2);
    const replicaLocations = options.replicas ?? [];
    const refused = replicaLocations.find((replica) => !isPostgres(replica));
    if (refused !== undefined) throw new StoreUnusable(`a read replica must be a postgres:// URL: ${refused}`);
    // Each engine's code (and its driver) loads only when a database of its kind is opened.
    const { openPostgresEngine } = await import('./postgres/postgresEngine.js');
    const engine = await openPostgresEngine(location, { poolSize, busyTimeoutMs, log, replicaLocations, requestsInProgress });
    return storeOver(engine, storeOptions);
  }
  if (options.replicas?.length) throw new StoreUnusable('read replicas are for PostgreSQL: --db must then be a postgres:// URL');
  if (options.mustExist) assertStoreExists(location);
  const { openSqliteEngine } = await import('./sqlite/sqliteEngine.js');
  return storeOver(openSqliteEngine(sqlitePath(location), { role: options.role, busyTimeoutMs, log }), storeOptions);
}
