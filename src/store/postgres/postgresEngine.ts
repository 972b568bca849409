import type { Engine } from '../engine/engine.js';
import { BackupUnsupported, CompactUnsupported, SchemaTooNew, StoreBusy, StoreFull, StoreOpenError, StoreOpenFull, StoreUnavailable, StoreUnreachable, StoreUnusable } from '../vocabulary/storeErrors.js';
import type { StoreLog } from '../vocabulary/storeLog.js';
import type { RequestsInProgress } from '../vocabulary/requestsInProgress.js';
import { startWriteThread } from '../threads/writeThreadClient.js';
import { tenantWrite } from './writeTransaction.js';
import { distributionOf } from './citus.js';
import type pg from 'pg';
import { inTransaction, isDiskFull, isLockTimeout, isUnreachable, openPool, prepareNothingByName } from './connection.js';
import { datasetSteps } from './datasetReads.js';
import { invariantReads } from './invariantReads.js';
import type { ImportThreadData } from './importThread.js';
import { keySteps } from './keys.js';
import { keyedFilteredReads } from './keyedFilteredReads.js';
import { keyedReads } from './keyedReads.js';
import { migrate } from './migrations.js';
import { behindPooler } from './pooler.js';
import { postgresReads } from './reads.js';
import { logPosition, replicaServer } from './replicas.js';
import { writeSteps } from './writeSteps.js';

export interface PostgresEngineOptions {
  /** Connections at most (`--db-pool`). */
  poolSize: number;
  /** How long a bulk upsert waits for another writer of its tenant before it is refused (503). */
  busyTimeoutMs: number;
  log: StoreLog;
  /** Read replicas (`--db-replica`): streaming standbys of the database, each with a pool of `poolSize` connections. */
  replicaLocations?: readonly string[];
  /** The store's count of its server's requests (`Store.requestsInProgress`): imports give way to them. */
  requestsInProgress?: RequestsInProgress;
}

/**
 * A connection URL as pg takes it, and whether statements are prepared by name on its
 * connections, as the URL says: `prepared=on`, `prepared=off` (behind PgBouncer's transaction
 * pooling before 1.21, which keeps no prepared statement from one transaction to the next), or
 * nothing (`undefined`): by name unless a pooler is seen ({@link namedUnlessPooled}). Each URL
 * says it for its own server, so a primary behind PgBouncer and replicas reached directly mix.
 */
function connectionOf(location: string): { connectionString: string; prepared?: boolean } {
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    return { connectionString: location };
  }
  const prepared = url.searchParams.get('prepared');
  if (prepared === null) return { connectionString: location };
  if (prepared !== 'on' && prepared !== 'off') throw new StoreUnusable(`${withoutPassword(location)}: prepared must be on or off, not ${JSON.stringify(prepared)}`);
  url.searchParams.delete('prepared');
  return { connectionString: url.toString(), prepared: prepared === 'on' };
}

/**
 * Whether `pool`, whose URL said nothing of `prepared`, prepares statements by name: not behind
 * a connection pooler (./pooler.ts), which in transaction pooling would run a statement prepared
 * on one server connection on another ("prepared statement ... already exists", or "does not
 * exist"). Any pooler counts, whatever its mode: unnamed statements work in every mode, named
 * ones not in all. Said once, in one log line. Runs before the pool's first named statement.
 */
async function namedUnlessPooled(pool: pg.Pool, location: string, log: StoreLog): Promise<boolean> {
  if (!(await behindPooler(pool))) return true;
  prepareNothingByName(pool);
  log.warn(
    { server: withoutPassword(location) },
    'a connection pooler (such as PgBouncer) is between compdata and PostgreSQL: no statement is prepared by name ' +
      '(prepared=on in the URL prepares them, for session pooling or PgBouncer 1.21 and later with max_prepared_statements)',
  );
  return false;
}

/** A snapshot: every read of the transaction sees the database as it was at its first. */
const SNAPSHOT = { begin: 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' };

/**
 * The PostgreSQL engine: a pool of connections to one database, shared by any number of server
 * processes. Every read is one statement on any connection of the pool; every write is one
 * transaction that first takes its tenant's write lock (writeSteps.ts), so that writes of one
 * tenant are serialised and those of different tenants run side by side. Should the database
 * go away, each request is refused with `StoreUnavailable` (503, Retry-After) and the pool
 * connects again once it is back; nothing is to be restarted. Should its disk fill, each write
 * that needs more room is refused with `StoreFull` (507) and rolled back.
 *
 * Resolves once the database answers and its schema is up to date; rejects with a
 * {@link StoreOpenError} that says why otherwise.
 */
export async function openPostgresEngine(connectionString: string, options: PostgresEngineOptions): Promise<Engine> {
  const poolOf = (location: string) => {
    const { connectionString: url, prepared } = connectionOf(location);
    const pool = openPool(url, {
      size: options.poolSize,
      namedStatements: prepared ?? true,
      // What the server said, not the error's fields: pg-pool hangs the whole client on it (its
      // settings and every statement it prepared), tens of kilobytes in one log line.
      onIdleError: (error) =>
        options.log.warn({ reason: error.message, code: (error as { code?: string }).code }, 'a database connection was lost; the pool opens another when needed'),
    });
    // Whether it prepares by name, settled before its first named statement.
    const settled = async () => prepared ?? (await namedUnlessPooled(pool, location, options.log));
    return { pool, settled };
  };
  const replicas = (options.replicaLocations ?? []).map((location, i) => {
    const { pool, settled } = poolOf(location);
    return replicaServer(`replica-${i + 1}`, pool, settled);
  });
  let pool: pg.Pool | undefined;
  let namedStatements: boolean;
  try {
    const primary = poolOf(connectionString);
    pool = primary.pool;
    namedStatements = await primary.settled();
    await migrate(pool);
  } catch (error) {
    await pool?.end();
    await Promise.all(replicas.map((replica) => replica.close()));
    throw error instanceof StoreOpenError ? error : openError(connectionString, error);
  }
  // A replica that does not answer yet is not an error: it joins the rotation once it does (../requests/readRouting.ts).
  const opened = pool;
  // A table's import, whose parsing, checks and rendering would hold up the event loop for
  // seconds, runs in a thread of its own (importThread.ts).
  const importThread = startWriteThread({
    base: import.meta.url,
    name: 'importThread',
    title: 'import thread',
    busyTimeoutMs: options.busyTimeoutMs,
    log: options.log,
    data: () =>
      ({
        connectionString: connectionOf(connectionString).connectionString,
        namedStatements,
        busyTimeoutMs: options.busyTimeoutMs,
        requestsInProgress: options.requestsInProgress,
      }) satisfies ImportThreadData,
  });

  return {
    reads: postgresReads(opened),
    keys: keySteps(opened),
    keyedReads: { ...keyedReads(opened), ...keyedFilteredReads(opened) },
    textHoldsNul: false,
    synchronousReads: false,
    write: (tenantId, write) =>
      write.kind === 'importTable' ? importThread.write(tenantId, write) : tenantWrite(opened, tenantId, write, options.busyTimeoutMs),
    inWriteTransaction: (work) => inTransaction(opened, (client) => work(writeSteps(client))),
    inSnapshot: (work) =>
      inTransaction(opened, (client) => work({ reads: postgresReads(client), dataset: datasetSteps(client), invariants: invariantReads(client) }), SNAPSHOT),
    async health() {
      await opened.query('SELECT 1');
    },
    async databaseBytes() {
      const { rows } = await opened.query<{ bytes: string }>('SELECT pg_database_size(current_database())::text AS bytes');
      return Number(rows[0]!.bytes);
    },
    distribution: () => distributionOf(opened),
    async backup() {
      throw new BackupUnsupported(
        "a PostgreSQL database is copied with PostgreSQL's own tools, consistent while servers write: " +
          "pg_dump --format=custom --file=OUT 'postgres://...' (pg_restore loads it into an empty database)",
      );
    },
    async compact() {
      throw new CompactUnsupported(
        'PostgreSQL reuses the space of deleted rows by itself (autovacuum); to give it back to the file system, ' +
          "run VACUUM FULL on the database at a quiet time (it locks each table while it rewrites it): psql 'postgres://...' -c 'VACUUM FULL'",
      );
    },
    close: async () => {
      await importThread.stop();
      await Promise.all(replicas.map((replica) => replica.close()));
      await opened.end();
    },
    storeError,
    replicas,
    logPosition: () => logPosition(opened),
  };
}

/** PostgreSQL's errors as the store's: a server gone (503), a lock wait past its timeout (503), a full disk (507). */
function storeError(error: unknown): unknown {
  if (isUnreachable(error)) return new StoreUnavailable('The database cannot be reached; try again.', 1, { cause: error });
  if (isLockTimeout(error)) return new StoreBusy('The database is busy with another writer of this tenant; try again.', 1, { cause: error });
  if (isDiskFull(error)) return new StoreFull({ cause: error });
  return error;
}

/** Why the database cannot be opened, with its connection string shown without a password. */
function openError(connectionString: string, error: unknown): StoreOpenError {
  const shown = withoutPassword(connectionString);
  if (error instanceof SchemaTooNew) return new StoreUnusable(`${shown}: ${error.message}`, { cause: error });
  if (isDiskFull(error)) return new StoreOpenFull(shown, (error as Error).message, { cause: error });
  const message = `cannot open database ${shown}: ${(error as Error).message || String(error)}`;
  return isUnreachable(error) ? new StoreUnreachable(message, { cause: error }) : new StoreOpenError(message, { cause: error });
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
