import assert from 'node:assert/strict';
import { test } from 'node:test';
import { databaseFor, onlyOn } from '../support/testDatabases.js';
import { runCli, runInProcess } from './cliProcess.js';

/**
 * The options of read replicas and PgBouncer that are refused before anything is served (the
 * replicas themselves: test/store/postgres/replicas.test.ts, which runs `serve --db-replica`).
 */
test('serve --db-replica takes postgres:// URLs only: one line on stderr, exit 2', async (t) => {
  const path = await databaseFor(t);
  for (const replica of ['replica.db', 'http://replica', '']) {
    const result = await runCli(['serve', '--db', path, '--port', '0', '--db-replica', replica]);
    assert.equal(result.code, 2, replica);
    assert.match(result.stderr, /^error: [^\n]*postgres:\/\/[^\n]*\n$/, replica);
  }
});

test('a SQLite database with --db-replica is refused: replicas are for PostgreSQL', { skip: onlyOn('sqlite') }, async (t) => {
  const path = await databaseFor(t);
  const result = await runCli(['serve', '--db', path, '--port', '0', '--db-replica', 'postgres://postgres@127.0.0.1:9/compdata']);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /^error: read replicas are for PostgreSQL[^\n]*\n$/);
});

// A command of the CLI in this process: the URL's option is the subject, not the process.
test('prepared=… on a PostgreSQL URL is on or off, else refused at the start', { skip: onlyOn('postgres') }, async (t) => {
  const url = new URL(await databaseFor(t));
  url.searchParams.set('prepared', 'maybe');
  const refused = await runInProcess(['keys', 'list', '--db', url.toString()]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /^error: [^\n]*prepared must be on or off, not "maybe"\n$/);
  url.searchParams.set('prepared', 'off');
  const listed = await runInProcess(['keys', 'list', '--db', url.toString()]);
  assert.equal(listed.code, 0, listed.stderr);
});
