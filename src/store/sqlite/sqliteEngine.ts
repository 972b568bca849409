import { statSync } from 'node:fs';
import type { Engine } from '../engine/engine.js';
import { SchemaTooNew, StoreBusy, StoreFull, StoreOpenError, StoreOpenFull, StoreUnusable } from '../vocabulary/storeErrors.js';
import type { StoreLog } from '../vocabulary/storeLog.js';
import { backupDatabase } from './backup.js';
import { startCheckpointer, type Checkpointer } from './checkpointer.js';
import { datasetSteps } from './datasetReads.js';
import { inReadTransaction, inWriteTransaction, isDatabaseBusy, isDiskFull, openDatabase, type Db } from './db.js';
import { invariantReads } from './invariantReads.js';
import { keySteps } from './keys.js';
import { sqliteReads } from './reads.js';
import { refreshRenamedRecords } from './recordTexts.js';
import { writeSteps } from './writeSteps.js';
import { startTransactionThread } from './transactionThreadClient.js';
import { startWriter } from './writer.js';

export interface SqliteEngineOptions {
  /**
   * `server`: reads on this thread, writes in a writer thread, the transactions that span awaits
   * (the administration's) in a thread of their own, WAL checkpoints in a thread of
   * their own. `command` (the CLI): a small cache, no mmap, the writer checkpoints.
   */
  role: 'server' | 'command';
  /** How long a write waits for another process's write lock before it is refused (503). */
  busyTimeoutMs: number;
  log: StoreLog;
  /** For tests of a writer that dies: the first writer thread exits inside its first transaction. */
  writerExitsInFirstTransaction?: boolean;
  /** For tests of a transaction thread that dies: the first one exits at its first commit. */
  transactionThreadExitsAtFirstCommit?: boolean;
}

/**
 * The SQLite engine: one database file, shared by any number of processes. Reads run on the
 * calling thread with prepared statements (WAL readers never wait, and a page is one statement
 * of about a millisecond); the bulk upserts of a server run in its writer thread (writer.ts),
 * so that a write waiting for a lock never holds up the event loop; so do a server's transactions
 * that span awaits (transactionThreadClient.ts). Exports and checks, and a command's loads,
 * use a connection of their own for their transaction, so that no read on the shared
 * connection sees their uncommitted data or their old snapshot.
 *
 * Throws a {@link StoreOpenError} that says why when the file cannot be served.
 */
export function openSqliteEngine(path: string, options: SqliteEngineOptions): Engine {
  const { busyTimeoutMs, log } = options;
  const db = openFile(path, options);
  const writer = startWriter(
    { path, busyTimeoutMs, checkpoints: options.role !== 'server', exitInFirstTransaction: options.writerExitsInFirstTransaction },
    log,
  );
  // A server's transactions that span awaits (the administration's) run in a thread of their own too.
  const transactions = options.role === 'server' ? startTransactionThread({ path, busyTimeoutMs, checkpoints: false, exitAtFirstCommit: options.transactionThreadExitsAtFirstCommit }, log) : undefined;
  // A server's checkpoint thread starts with its first write: only the writer thread's commits,
  // which do not checkpoint, leave the WAL to it (a server that only reads starts no thread).
  let checkpointer: Checkpointer | undefined;
  const startCheckpoints = () =>
    startCheckpointer(path, {
      onError: (error) => log.error({ err: error }, 'the checkpoint thread failed'),
      onStopped: () => {
        writer.checkpointByItself();
        transactions?.checkpointByItself();
      },
      onDiskFull: (full) =>
        full
          ? log.warn({}, 'WAL checkpoints fail: the disk that holds the database is full; the WAL keeps every commit until space returns')
          : log.warn({}, 'WAL checkpoints succeed again: the disk has room'),
    });
  let closing = false;
  const ping = db.prepare<[], number>('SELECT 1').pluck();
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();

  /** A connection of its own for one transaction that spans awaits. */
  const withConnection = async <T>(work: (connection: Db) => Promise<T>): Promise<T> => {
    const connection = openDatabase(path, { role: options.role === 'server' ? 'writer' : 'command', busyTimeoutMs });
    try {
      return await work(connection);
    } finally {
      connection.close();
    }
  };

  return {
    reads: sqliteReads(db),
    keys: keySteps(db),
    textHoldsNul: true,
    synchronousReads: true,
    changeCounter: () => dataVersion.get()!,
    replicas: [],
    write: (tenantId, write) => {
      if (options.role === 'server' && !closing) checkpointer ??= startCheckpoints();
      return writer.write(tenantId, write);
    },
    inWriteTransaction: (work) => {
      if (!transactions) return withConnection((connection) => inWriteTransaction(connection, () => work(writeSteps(connection))));
      if (!closing) checkpointer ??= startCheckpoints();
      return transactions.inWriteTransaction(work);
    },
    inSnapshot: (work) =>
      withConnection((connection) =>
        inReadTransaction(connection, () =>
          work({ reads: sqliteReads(connection), dataset: datasetSteps(connection), invariants: invariantReads(connection) }),
        ),
      ),
    async health() {
      ping.get();
    },
    databaseBytes: async () => fileBytes(path) + fileBytes(`${path}-wal`),
    backup: (target) => backupDatabase(db, target),
    // The records of renamed users first take their user's object (one transaction). VACUUM rewrites the file through the WAL; the checkpoint then copies it back,
    // and the file shrinks to the pages left.
    compact: () =>
      withConnection(async (connection) => {
        refreshRenamedRecords(connection);
        connection.exec('VACUUM');
        connection.pragma('wal_checkpoint(TRUNCATE)');
      }),
    async close() {
      closing = true;
      await writer.stop();
      await transactions?.stop();
      await checkpointer?.stop();
      foldWal(db, log);
      db.close();
    },
    storeError,
  };
}

/** The shared connection of the file, or why the file cannot be served. */
function openFile(path: string, options: SqliteEngineOptions): Db {
  try {
    return openDatabase(path, { role: options.role, busyTimeoutMs: options.busyTimeoutMs });
  } catch (error) {
    if (isDiskFull(error)) {
      throw new StoreOpenFull(path, 'SQLite needs room for the -shm file beside it', { cause: error });
    }
    throw unusable(path, error) ?? new StoreOpenError(`cannot open database ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/** Why SQLite cannot serve the file at `path`, when it is one of the {@link StoreUnusable} cases. */
function unusable(path: string, error: unknown): StoreUnusable | undefined {
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
