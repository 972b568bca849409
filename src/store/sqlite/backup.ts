import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isDiskFull, type Db } from './db.js';

/** Pages copied per step after the first: all of them, so that the copy is one snapshot. */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies the database of `db` into a new file at `target` with SQLite's online backup
 * (better-sqlite3's `backup`), as one read transaction: the copy is the database as it was at
 * one commit, WAL included, while other processes go on writing (a WAL reader blocks no
 * writer). Copied in one step rather than in slices: SQLite restarts a sliced backup whenever
 * another connection writes between two slices, which steady writers would do forever.
 *
 * The copy is written under a temporary name beside `target` and linked to `target` once
 * complete (a link never replaces a file that is there), so that `target` is either absent or
 * whole; the temporary file goes whatever happens.
 */
export async function backupDatabase(db: Db, target: string): Promise<void> {
  if (existsSync(target)) throw new Error(`${target} already exists: the backup never replaces a file`);
  const temporary = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.partial`);
  try {
    await db.backup(temporary, { progress: () => ALL_PAGES });
    linkSync(temporary, target);
  } catch (error) {
    // The copy's disk, not the database's: said here, before the store takes it for its own.
    if (isDiskFull(error)) throw new Error(`no room for the copy at ${target}: its disk is full; nothing was left there`, { cause: error });
    throw error;
  } finally {
    for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(`${temporary}${suffix}`, { force: true });
  }
}
