import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { behindPooler } from '../../src/store/postgres/pooler.js';
import { buildFixture } from '../support/fixture.js';
import { exchange, onlyOn, tempDatabase } from '../support/harness.js';
import { databaseFor } from '../support/testDatabases.js';
import { startServe } from '../support/serveProcess.js';
import { until } from '../support/until.js';

/**
 * `serve` behind PgBouncer in transaction pooling with a `--db` URL that says nothing of
 * `prepared` (docs/scaling.md#pgbouncer): it sees the pooler, says so in one log line and
 * prepares nothing by name, so no request fails on a statement prepared on another server
 * connection. Runs in the PgBouncer pass (test/support/withPgBouncer.ts), whose database is
 * reached through a PgBouncer of Debian's (1.18, which keeps no prepared statement between
 * transactions). How the pooler is seen is checked on every PostgreSQL pass: seen through
 * PgBouncer (in either pooling mode), not on a direct connection.
 */
const skip = process.env.COMPDATA_TEST_PGBOUNCER === 'transaction' ? false : 'only through PgBouncer in transaction pooling (make test-pgbouncer)';

const POOLER_LINE = /connection pooler/;

test('serve through PgBouncer in transaction pooling, prepared= left out: one log line, and no 500 across concurrent reads, writes and an import', { skip }, async (t) => {
  const { database, store } = await tempDatabase(t);
  const fixture = await buildFixture(store, { tenant: 'acme', users: 6, records: 40, deals: 5 });
  const url = new URL(database);
  assert.equal(url.searchParams.get('prepared'), 'off', 'the pass names PgBouncer with prepared=off');
  url.searchParams.delete('prepared');
  const served = await startServe(t, url.toString(), ['--db-pool', '8']);

  const paths = [
    '/v1/reporting?limit=5',
    '/v1/reporting?limit=3&offset=2',
    '/v1/users/groups?user=user1@acme.example',
    '/v1/users/managers?limit=5',
    '/v1/tables/deals/records?limit=3',
    '/v1/tables',
  ];
  const key = fixture.key;
  const statuses: number[] = [];
  for (let round = 0; round < 3; round += 1) {
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => exchange(served.url, 'GET', paths[i % paths.length]!, { key })));
    statuses.push(...answers.map((answer) => answer.status));
  }
  // Writes, side by side, and a push of table records (imported by a thread of its own, on its own connection).
  const item = (i: number) => ({ user: `user${i}@acme.example`, group_dimension: 'region', group: `G${i}`, start_date: '2026-01' });
  const writes = await Promise.all(Array.from({ length: 6 }, (_, i) => exchange(served.url, 'PUT', '/v1/users/groups/bulk', { key, json: { data: [item(i)] } })));
  statuses.push(...writes.map((answer) => answer.status));
  assert.deepEqual(
    statuses.filter((status) => status !== 200),
    [],
    `${statuses.length} answers; the log: ${JSON.stringify(served.logs().filter((line) => line.level === 'warn' || line.level === 'error'))}`,
  );
  const [deal] = (await exchange(served.url, 'GET', '/v1/tables/deals/records?limit=1', { key })).body.data;
  const pushed = await exchange(served.url, 'POST', '/v1/tables/deals/records/bulk', { key, json: { data: [{ ...deal, name: 'Renamed' }] } });
  assert.equal(pushed.status, 202, pushed.text);
  const imported = await until('the push is imported', async () => {
    const state = (await exchange(served.url, 'GET', `/v1/imports/${pushed.body.import_id}`, { key })).body.data_import;
    return state.status === 'finished' && state;
  });
  assert.deepEqual(imported.data_tables_details.map((table: { status: string }) => table.status), ['finished'], JSON.stringify(imported));
  const told = served.logs().filter((line) => POOLER_LINE.test(String(line.msg)));
  assert.equal(told.length, 1, JSON.stringify(served.logs()));
});

test('a pooler is seen through PgBouncer, in either pooling mode, and not on a direct connection', { skip: onlyOn('postgres') }, async (t) => {
  const url = new URL(await databaseFor(t));
  url.searchParams.delete('prepared');
  const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
  // The server of a connection that is ending may still say so when the database is dropped
  // right after (57P01, "terminating connection due to administrator command"): not this test's
  // subject. Any other error of the pool fails it.
  const unexpected: Error[] = [];
  let ending = false;
  pool.on('error', (error: Error & { code?: string }) => void (ending && error.code === '57P01' ? undefined : unexpected.push(error)));
  try {
    for (let probe = 0; probe < 3; probe += 1) {
      assert.equal(await behindPooler(pool), process.env.COMPDATA_TEST_PGBOUNCER !== undefined, process.env.COMPDATA_TEST_PGBOUNCER ?? 'direct');
    }
  } finally {
    // Before the database is dropped, which would end its idle connection under it.
    ending = true;
    await pool.end();
  }
  assert.deepEqual(unexpected, []);
});
