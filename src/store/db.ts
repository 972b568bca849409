import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

/**
 * Opens (creating when missing) the database file and brings its schema up to date.
 *
 * Pragmas, chosen once here:
 * - WAL: readers never block the writer, and several processes may share the file (D7).
 * - synchronous=NORMAL: in WAL mode a crash of the process (even SIGKILL) loses nothing that
 *   was committed and never corrupts; only a power loss may roll back the last commits.
 * - busy_timeout: a writer in another process makes us wait, not fail.
 * - foreign_keys: references are enforced.
 */
export function openDatabase(path: string): Db {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 10000');
  db.pragma('foreign_keys = ON');
  db.pragma('cache_size = -65536');
  db.pragma('temp_store = MEMORY');
  db.pragma('mmap_size = 1073741824');
  migrate(db);
  return db;
}

function migrate(db: Db): void {
  const current = (): number => db.pragma('user_version', { simple: true }) as number;
  if (current() >= MIGRATIONS.length) return;
  db.transaction(() => {
    // Re-read inside the write lock: another process may have migrated meanwhile.
    for (let version = current(); version < MIGRATIONS.length; version += 1) {
      db.exec(MIGRATIONS[version]!);
      db.pragma(`user_version = ${version + 1}`);
    }
  }).immediate();
}
