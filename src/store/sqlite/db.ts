import Database from 'better-sqlite3';
import { DEFAULT_WRITE_WAIT_MS, SchemaTooNew } from '../vocabulary/storeErrors.js';
import { MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

/** Whether `error` says another connection held the lock for longer than the busy timeout. */
export function isDatabaseBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * Whether `error` says the disk (or file system) that holds the database had no room: for a
 * write (`SQLITE_FULL`), or for the -shm file that a connection needs to open the database when
 * no other connection has it open (`SQLITE_IOERR_SHMSIZE`: the file could not be extended).
 */
export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === 'SQLITE_IOERR_SHMSIZE';
}

/**
 * Opens (creating when missing) the database file and brings its schema up to date.
 *
 * Pragmas, chosen once here:
 * - WAL: readers never block the writer, and several processes may share the file
 *   (docs/rules.md#serving).
 * - synchronous=NORMAL: in WAL mode a crash of the process (even SIGKILL) loses nothing that
 *   was committed and never corrupts; only a power loss may roll back the last commits.
 * - busy_timeout: a writer in another process makes us wait (bounded), not fail at once.
 * - foreign_keys: references are enforced.
 * - mmap and a 64 MiB page cache for a server and its writer thread: reads skip a copy and
 *   find hot pages. A `command` (the CLI) reads each page about once: it gets no mmap and an
 *   8 MiB cache, which would otherwise only count as its memory (an import writes as fast
 *   either way).
 */
export function openDatabase(path: string, options: { role?: 'server' | 'writer' | 'command'; busyTimeoutMs?: number } = {}): Db {
  const shortLived = options.role === 'command';
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? DEFAULT_WRITE_WAIT_MS)}`);
  db.pragma('foreign_keys = ON');
  db.pragma(shortLived ? 'cache_size = -8192' : 'cache_size = -65536');
  db.pragma('temp_store = MEMORY');
  db.pragma(shortLived ? 'mmap_size = 0' : 'mmap_size = 1073741824');
  migrate(db);
  return db;
}

function migrate(db: Db): void {
  const current = (): number => db.pragma('user_version', { simple: true }) as number;
  if (current() > MIGRATIONS.length) throw new SchemaTooNew(current(), MIGRATIONS.length);
  if (current() === MIGRATIONS.length) return;
  db.transaction(() => {
    // Re-read inside the write lock: another process may have migrated meanwhile.
    for (let version = current(); version < MIGRATIONS.length; version += 1) {
      db.exec(MIGRATIONS[version]!);
      db.pragma(`user_version = ${version + 1}`);
    }
  }).immediate();
}

/**
 * Runs `work` in one read transaction: every read sees the same snapshot, even across the
 * awaits of a slow reader (WAL: writers of other connections go on meanwhile).
 */
export async function inReadTransaction<T>(db: Db, work: () => Promise<T>): Promise<T> {
  db.exec('BEGIN');
  try {
    return await work();
  } finally {
    db.exec('COMMIT');
  }
}

/**
 * Runs `work` in one write transaction that spans its awaits (a streamed load): committed when
 * it returns, rolled back when it throws, so a failed load leaves nothing behind. Only for a
 * connection of its own (a CLI command's), where nothing else runs between the awaits; other
 * connections keep reading the data as it was until the commit.
 */
export async function inWriteTransaction<T>(db: Db, work: () => Promise<T>): Promise<T> {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = await work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
