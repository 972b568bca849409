import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { test } from 'node:test';
import { buildFixture } from '../support/fixture.js';
import { tempDatabase } from '../support/harness.js';
import { runCli, runInProcess } from './cliProcess.js';

/**
 * `compdata compact`: a SQLite file that deleted data left 8 MB of free pages in shrinks by
 * them, its data intact; PostgreSQL, which reuses free space by itself, is a usage error that
 * says what to run instead.
 */
test('compact gives the free pages of a SQLite file back, its data intact; on PostgreSQL it says to run VACUUM FULL', async (t) => {
  const db = await tempDatabase(t);
  await buildFixture(db.store, { tenant: 'acme' });
  if (db.engine === 'postgres') {
    const result = await runCli(['compact', '--db', db.database]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /^error: PostgreSQL reuses the space of deleted rows by itself \(autovacuum\).*VACUUM FULL.*\n$/);
    return;
  }
  // Data written and deleted, as an upgrade that rewrites data leaves its old pages.
  await db.sql.exec('CREATE TABLE scratch (blob BLOB); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 128) INSERT INTO scratch SELECT randomblob(65536) FROM n');
  await db.sql.exec('DROP TABLE scratch; PRAGMA wal_checkpoint(TRUNCATE)');
  const records = await db.sql.value('SELECT count(*) FROM reporting_records');
  const before = statSync(db.database).size;
  assert.ok(before > 8_000_000, `the file holds the freed pages: ${before} bytes`);

  const result = await runCli(['compact', '--db', db.database]);
  assert.equal(result.code, 0, result.stderr);
  const [, from, to] = /^compacted .* from ([\d.]+) MB to ([\d.]+) MB in [\d.]+s\n$/.exec(result.stdout) ?? [];
  assert.ok(from !== undefined && to !== undefined, result.stdout);
  assert.ok(Number(from) - Number(to) > 7.5, result.stdout);
  const after = statSync(db.database).size;
  assert.ok(before - after > 8_000_000, `${before} -> ${after} bytes`);

  assert.equal(await db.sql.value('SELECT count(*) FROM reporting_records'), records);
  // The check of the compacted file runs in this process (check.test.ts runs that command as the binary).
  const check = await runInProcess(['check', '--db', db.database]);
  assert.equal(check.code, 0, check.stdout + check.stderr);
});
