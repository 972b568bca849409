import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { runCli } from './cliProcess.js';
import { databaseFor, onlyOn, TEST_ENGINE } from '../support/testDatabases.js';
import { MIGRATIONS as SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { MIGRATIONS as POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations.js';

/**
 * A database that is there but that this build cannot serve is refused before anything starts:
 * exit 2 and one line saying which case it is (issue 15, part 3). A newer schema matters most:
 * serving it could misread or damage what a newer build wrote.
 */

/** Marks the database at `location` as written by a build `ahead` migrations newer than this one. */
async function makeSchemaNewer(location: string, ahead: number): Promise<number> {
  if (TEST_ENGINE === 'sqlite') {
    const db = new Database(location);
    db.pragma(`user_version = ${SQLITE_MIGRATIONS.length + ahead}`);
    db.close();
    return SQLITE_MIGRATIONS.length;
  }
  const client = new pg.Client({ connectionString: location });
  await client.connect();
  await client.query('UPDATE schema_version SET version = $1', [POSTGRES_MIGRATIONS.length + ahead]);
  await client.end();
  return POSTGRES_MIGRATIONS.length;
}

/** How long a command that should refuse at once may run before it is stopped (and the test fails). */
const CLI_BOUND_MS = 60_000;

describe('a database this build cannot serve: exit 2, one line', () => {
  test('of a newer schema: serve, keys and export refuse it, naming both versions', async (t) => {
    const location = await databaseFor(t);
    const known = await makeSchemaNewer(location, 3);
    for (const args of [['serve', '--db', location, '--port', '0'], ['keys', 'list', '--db', location], ['export', '--db', location, '--tenant', 'acme']]) {
      // A serve that started would never end: it is stopped after a minute, and fails below. The
      // bound is wide because a CLI's start (tsx compiling the sources) takes seconds when the
      // machine runs both test passes at once; a refusal ends the process as soon as it starts.
      const result = await runCli(args, undefined, CLI_BOUND_MS);
      assert.equal(result.code, 2, `${args[0]}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`^error: [^\\n]*schema is version ${known + 3}, newer than this build's ${known}[^\\n]*\\n$`), args[0]);
      assert.equal(result.stdout, '', `${args[0]} printed nothing on stdout`);
    }
  });

  test('a file that is not a database', { skip: onlyOn('sqlite') }, async (t) => {
    const location = await databaseFor(t);
    writeFileSync(location, 'these are notes, not a database\n'.repeat(200));
    const result = await runCli(['serve', '--db', location, '--port', '0'], undefined, CLI_BOUND_MS);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /^error: [^\n]*is not a database[^\n]*\n$/);
  });
});
