import { statSync } from 'node:fs';
import type { Upsert } from '../../domain/bulkItems.js';
import { narrows } from '../../domain/reportingFilter.js';
import {
  StoreBusy,
  StoreFull,
  TenantNotEmpty,
  type BulkOutcome,
  type LoadOptions,
  type PageOutcome,
  type PageQuery,
  type Principal,
  type Source,
  type Store,
  type StoreLog,
} from '../store.js';
import type { TenantWriter } from '../tenantWriting.js';
import { checkInvariants } from '../invariantCheck.js';
import { translatingErrors } from '../errorTranslation.js';
import { attributionReads } from './attributionReads.js';
import { backupDatabase } from './backup.js';
import { startCheckpointer, type Checkpointer } from './checkpointer.js';
import { changeScope, readChanges } from '../paging/changePaging.js';
import { changeReads } from './changeReads.js';
import { changeStamps } from './changeStamps.js';
import { datasetReads } from './datasetReads.js';
import { discoveryReads } from './discoveryReads.js';
import { filteredReporting } from './filteredReporting.js';
import { dataVersionBumper } from './dataVersion.js';
import { invariantReads } from './invariantReads.js';
import { DEFAULT_BUSY_TIMEOUT_MS, inReadTransaction, inWriteTransaction, isDatabaseBusy, isDiskFull, openDatabase, type Db } from './db.js';
import { keyStatements, type SqlitePrincipal } from './keys.js';
import type { PagedSource } from '../paging/pagedSource.js';
import { readPage, scopeOf } from '../paging/pageReading.js';
import { pagedReads } from './pagedReads.js';
import { SqliteTenantWriter } from './tenantWriter.js';
import { tenantStatements } from './tenants.js';
import { startWriter, type Writer } from './writer.js';

export interface SqliteStoreOptions {
  /**
   * `server`: reads on this thread, writes in a writer thread, WAL checkpoints in a thread of
   * their own. `command` (the CLI): everything on this thread, a small cache, no mmap.
   */
  role: 'server' | 'command';
  /** How long a write waits for another process's write lock before it is refused (503). */
  busyTimeoutMs?: number;
  log: StoreLog;
  /** For tests: the first writer thread dies inside its first transaction. */
  writerExitsInFirstTransaction?: boolean;
}

/**
 * The SQLite engine: one database file, shared by any number of processes
 * (docs/rules.md#serving). Reads run on the calling thread with prepared statements (they never
 * wait: WAL readers do not block, and a page is one statement of about a millisecond); writes
 * of a server run in its writer thread (writer.ts), so that a write waiting for a lock never
 * holds up the event loop. Loads and exports use a connection of their own for their
 * transaction, so that no other read on the shared connection sees their uncommitted data or
 * their old snapshot.
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions): Store {
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const db = openDatabase(path, { role: options.role, busyTimeoutMs });
  const keys = keyStatements(db);
  const tenants = tenantStatements(db);
  const paged = pagedReads(db);
  const attributions = attributionReads(db);
  const changes = changeReads(db);
  const discovery = discoveryReads(db);
  const filtered = filteredReporting(db);
  const ping = db.prepare<[], number>('SELECT 1').pluck();
  const writer: Writer = startWriter(
    { path, busyTimeoutMs, checkpoints: options.role !== 'server', exitInFirstTransaction: options.writerExitsInFirstTransaction },
    options.log,
  );
  const checkpointer: Checkpointer | undefined =
    options.role === 'server'
      ? startCheckpointer(path, {
          onError: (error) => options.log.error({ err: error }, 'the checkpoint thread failed'),
          onStopped: () => writer.checkpointByItself(),
          onDiskFull: (full) =>
            full
              ? options.log.warn({}, 'WAL checkpoints fail: the disk that holds the database is full; the WAL keeps every commit until space returns')
              : options.log.warn({}, 'WAL checkpoints succeed again: the disk has room'),
        })
      : undefined;

  const sourceOf = (principal: Principal, source: Source): PagedSource | undefined => {
    const { tenantId, emptyFragment } = principal as SqlitePrincipal;
    switch (source.kind) {
      case 'reporting':
        if (narrows(source)) return filtered.reporting(tenantId, emptyFragment, source);
        return paged.reporting(tenantId, emptyFragment);
      case 'tableRecords':
        return paged.tableRecords(tenantId, source.table);
      case 'groupAttributions':
        return attributions.groups(tenantId, { user: source.user, dimension: source.dimension });
      case 'managerAttributions':
        return attributions.managers(tenantId, { user: source.user });
    }
  };
  /** A connection of its own for one transaction that spans awaits. */
  const withConnection = async <T>(work: (connection: Db) => Promise<T>): Promise<T> => {
    const connection = openDatabase(path, { role: options.role === 'server' ? 'writer' : 'command', busyTimeoutMs });
    try {
      return await work(connection);
    } finally {
      connection.close();
    }
  };

  const store: Store = {
    authenticate: async (presented) => keys.authenticate(presented),
    async page(principal, source, query: PageQuery): Promise<PageOutcome> {
      const paged = sourceOf(principal, source);
      if (!paged) return 'unknownTable';
      const page = await readPage(paged, query, () => scopeOf(source));
      return typeof page === 'string' ? page : { ...page, version: (principal as SqlitePrincipal).dataVersion };
    },
    async total(principal, source) {
      const paged = sourceOf(principal, source);
      return paged && { count: await paged.total(), version: (principal as SqlitePrincipal).dataVersion };
    },
    async changes(principal, source, query) {
      const { tenantId, emptyFragment, dataVersion } = principal as SqlitePrincipal;
      const reads = source.kind === 'reporting' ? changes.reporting(tenantId, emptyFragment) : changes.tableRecords(tenantId, source.table);
      if (!reads) return 'unknownTable';
      const page = await readChanges(reads, query, tenantId, changeScope(source));
      return typeof page === 'string' ? page : { ...page, version: dataVersion };
    },
    bulkUpsert: (principal: Principal, items: readonly Upsert[]): Promise<BulkOutcome> => writer.bulkUpsert(principal.tenantId, items),
    tables: async (principal, key) => discovery.tables(principal.tenantId, key),
    reportingSchema: async (principal) => discovery.reportingSchema(principal.tenantId),
    async health() {
      ping.get();
    },
    async databaseBytes() {
      return fileBytes(path) + fileBytes(`${path}-wal`);
    },
    findTenant: async (name) => tenants.find(name),
    createKey: async (tenantName) => db.transaction(() => keys.create(tenants.ensure(tenantName))).immediate(),
    revokeKey: async (keyOrId) => keys.revoke(keyOrId),
    listKeys: async (tenantName) => keys.list(tenantName),
    loadTenant<T>(tenantName: string, load: LoadOptions, work: (writer: TenantWriter) => Promise<T>): Promise<T> {
      return withConnection((connection) =>
        inWriteTransaction(connection, async () => {
          const own = tenantStatements(connection);
          const tenant = own.ensure(tenantName);
          if (load.mustBeEmpty && own.hasData(tenant)) {
            throw new TenantNotEmpty(`tenant ${JSON.stringify(tenantName)} already has data; seed another tenant or database`);
          }
          if (load.replace) own.deleteData(tenant);
          dataVersionBumper(connection)(tenant.id);
          changeStamps(connection).forLoad(tenant.id, load.replace === true);
          return work(new SqliteTenantWriter(connection, tenant.id));
        }),
      );
    },
    readTenant(tenantName, work) {
      return withConnection((connection) =>
        inReadTransaction(connection, async () => {
          const tenant = tenantStatements(connection).find(tenantName);
          return tenant && work(datasetReads(connection, tenant));
        }),
      );
    },
    check: () => withConnection((connection) => inReadTransaction(connection, () => checkInvariants(invariantReads(connection)))),
    backup: (target) => backupDatabase(db, target),
    async close() {
      await writer.stop();
      await checkpointer?.stop();
      foldWal(db, options.log);
      db.close();
    },
  };
  return translatingErrors(store, storeError);
}

/** SQLite's errors as the store's: a write lock held past the busy timeout (503), a full disk (507). */
function storeError(error: unknown): unknown {
  if (isDatabaseBusy(error)) return new StoreBusy('The database is busy with another writer; try again.', 1, { cause: error });
  if (isDiskFull(error)) return new StoreFull({ cause: error });
  return error;
}

/**
 * Copies the WAL into the database file and truncates it, so that the file alone holds every
 * commit once the server is gone. Another process's reader or writer may keep it from
 * finishing: that is no fault (the WAL stays valid and the next checkpoint finishes the work).
 */
function foldWal(db: Db, log: StoreLog): void {
  try {
    const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    if (result?.busy) log.warn({}, 'the WAL could not be truncated: another connection is using it');
  } catch (error) {
    log.warn({ err: error }, 'the WAL could not be checkpointed');
  }
}

/** The size of a file, 0 when there is none (a WAL folded away). */
function fileBytes(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
