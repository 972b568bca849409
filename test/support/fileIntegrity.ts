import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { TEST_ENGINE } from './testDatabases.js';

/** SQLite: the file passes its integrity check (a PostgreSQL server outlives a killed client: nothing to check there). */
export function assertIntegrity(dbPath: string): void {
  if (TEST_ENGINE !== 'sqlite') return;
  const db = new Database(dbPath);
  try {
    assert.deepEqual(db.pragma('integrity_check'), [{ integrity_check: 'ok' }]);
  } finally {
    db.close();
  }
}
