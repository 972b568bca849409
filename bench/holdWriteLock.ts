/**
 * Another process holding the write lock of a database file, as a long `compdata import` would:
 * `node --import tsx bench/holdWriteLock.ts DB_PATH MILLISECONDS`. Prints `held` once the lock
 * is taken, rolls back and exits after MILLISECONDS.
 */
import Database from 'better-sqlite3';

const [path, ms] = process.argv.slice(2);
if (!path || !ms) {
  console.error('usage: holdWriteLock.ts DB_PATH MILLISECONDS');
  process.exit(2);
}
const db = new Database(path);
db.pragma('busy_timeout = 10000');
db.exec('BEGIN IMMEDIATE');
console.log('held');
setTimeout(() => {
  db.exec('ROLLBACK');
  db.close();
}, Number(ms));
