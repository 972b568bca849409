import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { describe, test } from 'node:test';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { serveDatabase, startTestServer, TEST_ENGINE, type TestServer, exchange } from '../support/harness.js';
import { captureLogs } from '../support/logCapture.js';
import { samplesOf, seriesKey } from '../support/prometheusText.js';
import { openSocket } from '../support/rawHttp.js';
import { smallDiskSkip } from '../support/testDatabases.js';
import { until } from '../support/until.js';

/**
 * Imports of data tables kept in the database (docs/rules.md#table-imports): every server of it
 * sees them, one whose server is gone is finished by another, and a full disk fails an import's
 * table with its error in the import's state.
 */
const deal = (i: number) => ({ id: `push-${i}`, name: `Pushed ${i} ${'x'.repeat(150)}`, owner_id: 'u1', close_date: null, amount: i, amount_currency: 'EUR' });
const records = (count: number, first = 0) => Array.from({ length: count }, (_, i) => deal(first + i));

async function finishedImport(base: string, key: string, id: string) {
  return until(`import ${id} is finished`, async () => {
    const response = await exchange(base, 'GET', `/v1/imports/${id}`, { key });
    // On a full disk a read may be a 503 to retry (PostgreSQL: a new connection cannot start), as a client would.
    if (response.status === 503) return false;
    assert.equal(response.status, 200, response.text);
    return response.body.data_import.status === 'finished' && response.body.data_import;
  });
}

const dealIds = async (server: TestServer, key: string) => (await server.call('GET', '/v1/tables/deals/records?limit=2000', { key })).body.data.length;

test('another server of the database sees an import, and finishes one whose server is gone', async (t) => {
  let fixture!: Fixture;
  const server = await startTestServer(t, {}, async (store) => (fixture = await buildFixture(store, { tenant: 'acme', users: 3, records: 2, deals: 2 })));
  const pushed = await server.call('POST', '/v1/tables/deals/records/bulk?debounce=3600', { key: fixture.key, json: { data: records(5) } });
  assert.equal(pushed.status, 202, pushed.text);
  const id = pushed.body.import_id;
  const other = await serveDatabase(server.database);
  try {
    const seen = await exchange(other.url, 'GET', `/v1/imports/${id}`, { key: fixture.key });
    assert.equal(seen.body.data_import.status, 'scheduled');
    assert.equal(seen.body.data_import.launched_at, null);

    // As a server killed while it ran the import leaves it: started, by a process that is no more.
    await server.sql.exec(`UPDATE imports SET status = 'started', owner = '${hostname()}/2147483646/gone', heartbeat_at = ${Date.now()}, launched_at = created_at`);
    const done = await finishedImport(other.url, fixture.key, id);
    assert.deepEqual(done.data_tables_details.map((table: { number_of_records: number }) => table.number_of_records), [5]);
    assert.equal(await dealIds(server, fixture.key), 7);
    assert.deepEqual(await server.store.check(), []);
  } finally {
    await other.close();
  }
});

test('an import started by a server of another machine is left to it while it speaks, and taken over once it is silent past the lease', async (t) => {
  let fixture!: Fixture;
  const server = await startTestServer(t, {}, async (store) => (fixture = await buildFixture(store, { tenant: 'acme', users: 3, records: 2, deals: 2 })));
  const push = async (first: number) => {
    const pushed = await server.call('POST', '/v1/tables/deals/records/bulk?debounce=3600', { key: fixture.key, json: { data: records(5, first) } });
    assert.equal(pushed.status, 202, pushed.text);
    return pushed.body.import_id as string;
  };
  const abroad = await push(0);
  const started = async (heartbeatAt: number) =>
    server.sql.exec(`UPDATE imports SET status = 'started', owner = 'elsewhere.example/4242/abcd', heartbeat_at = ${heartbeatAt}, launched_at = created_at WHERE id = '${abroad}'`);
  await started(Date.now());
  // A later import, due at once: the server's next look runs it, past the one of the other machine.
  const later = await push(100);
  await server.sql.exec(`UPDATE imports SET launch_at = 0 WHERE id = '${later}'`);
  await finishedImport(server.url, fixture.key, later);
  const left = await server.call('GET', `/v1/imports/${abroad}`, { key: fixture.key });
  assert.equal(left.body.data_import.status, 'started', 'a server of another machine that spoke within the lease keeps its import');
  assert.equal(await dealIds(server, fixture.key), 7);

  await started(Date.now() - 2 * 60_000);
  const done = await finishedImport(server.url, fixture.key, abroad);
  assert.deepEqual(done.data_tables_details.map((table: { number_of_records: number }) => table.number_of_records), [5]);
  assert.equal(await dealIds(server, fixture.key), 12);
  assert.deepEqual(await server.store.check(), []);
});

test('a table removed before its import runs (the tenant replaced by a dataset without it) fails with why, and nothing is written', async (t) => {
  let fixture!: Fixture;
  const server = await startTestServer(t, {}, async (store) => (fixture = await buildFixture(store, { tenant: 'acme', users: 3, records: 2, deals: 2 })));
  const pushed = await server.call('POST', '/v1/tables/deals/records/bulk?debounce=3600', { key: fixture.key, json: { data: records(3) } });
  assert.equal(pushed.status, 202, pushed.text);
  await server.store.loadTenant('acme', { replace: true }, async () => undefined);
  await server.sql.exec(`UPDATE imports SET launch_at = 0 WHERE id = '${pushed.body.import_id as string}'`);
  const done = await finishedImport(server.url, fixture.key, pushed.body.import_id as string);
  const [table] = done.data_tables_details;
  assert.equal(table.number_of_records, null);
  assert.equal(table.error.title, 'TableNotFound');
  assert.match(table.error.description, /deals/);
  assert.equal((await server.call('GET', '/v1/tables/deals/records', { key: fixture.key })).status, 404);
  assert.deepEqual(await server.store.check(), []);
});

test('a push whose client goes away mid-body stores nothing, and is logged as a request the client closed (499), not as a fault', async (t) => {
  let fixture!: Fixture;
  const logs = captureLogs('info');
  const server = await startTestServer(t, { logger: logs.logger, metrics: true }, async (store) => (fixture = await buildFixture(store, { tenant: 'acme', users: 3, records: 2, deals: 2 })));
  const socket = await openSocket(server.url);
  socket.on('error', () => undefined);
  const part = `{"data": [${JSON.stringify(deal(1))},`;
  socket.write(
    `POST /v1/tables/deals/records/bulk HTTP/1.1\r\nHost: test\r\nX-API-Key: ${fixture.key}\r\nContent-Type: application/json\r\nContent-Length: ${part.length + 1000}\r\n\r\n${part}`,
  );
  await until('the server reads the body', () => server.requestsInProgress() > 0);
  socket.destroy();
  const logged = await until('the push is logged', () => logs.entries().find((entry) => entry.msg === 'request' && entry.method === 'POST'));
  assert.equal(logged.status, 499);
  assert.equal(logged.aborted, true);
  assert.deepEqual(logs.entries().filter((entry) => entry.level >= 50), [], 'no error logged');
  const scraped = samplesOf((await server.call('GET', '/metrics')).text);
  assert.equal(scraped.get(seriesKey('compdata_http_requests_total', { operation: 'pushTableRecords', status: '499' })), 1, 'counted as closed by the client');
  assert.equal(Number(await server.sql.value('SELECT count(*) FROM imports')), 0, 'no import stored');
  assert.equal(await dealIds(server, fixture.key), 2);
});

const skip = await smallDiskSkip();

describe('a full disk fails the table of an import, with its error in the import', { skip }, () => {
  test('the import is finished with a StorageError, nothing of the table written; once space returns a push imports', async (t) => {
    let fixture!: Fixture;
    const logs = captureLogs('warn');
    const server = await startTestServer(
      t,
      { logger: logs.logger },
      async (store) => (fixture = await buildFixture(store, { tenant: 'acme', users: 3, records: 2, deals: 2 })),
      { smallDiskMegabytes: TEST_ENGINE === 'sqlite' ? 16 : 48 },
    );
    const disk = server.disk!;
    const big = records(6000);
    const pushed = await server.call('POST', '/v1/tables/deals/records/bulk?debounce=3600', { key: fixture.key, json: { data: big } });
    assert.equal(pushed.status, 202, pushed.text);
    // SQLite: the WAL copied into the file, so that the next writes reuse the WAL's room rather
    // than grow it: this test's update below, and the import's claim (a server's small writes on
    // a full disk find room in pages already there).
    if (TEST_ENGINE === 'sqlite') await server.sql.exec('PRAGMA wal_checkpoint(RESTART)');
    // PostgreSQL: this test's own connection opened while there is room (a new backend writes
    // the database's relation cache file, and cannot once the disk is full: "could not write
    // init file").
    else await server.sql.exec('SELECT 1');
    assert.ok(disk.fill() > 0, 'the ballast took the room left');
    await server.sql.exec('UPDATE imports SET launch_at = 0');
    const done = await finishedImport(server.url, fixture.key, pushed.body.import_id);
    const [table] = done.data_tables_details;
    assert.equal(table.error?.title, 'StorageError', JSON.stringify(table));
    assert.equal(table.number_of_records, null);
    assert.equal(await dealIds(server, fixture.key), 2, 'nothing of the table was written');

    disk.free();
    const again = await server.call('POST', '/v1/tables/deals/records/bulk', { key: fixture.key, json: { data: records(10) } });
    assert.equal(again.status, 202, again.text);
    const imported = await finishedImport(server.url, fixture.key, again.body.import_id);
    assert.equal(imported.data_tables_details[0].error, null);
    assert.equal(await dealIds(server, fixture.key), 12);
    assert.deepEqual(await server.store.check(), []);
  });
});

test('a push larger than the push limit is a 413 with the limit; other operations keep theirs [conf:ingest-limits]', async (t) => {
  let fixture!: Fixture;
  const server = await startTestServer(t, { pushBodyLimit: 4096, bodyLimit: 2048 }, async (store) => (fixture = await buildFixture(store, { tenant: 'acme', users: 3, records: 1, deals: 1 })));
  const small = await server.call('POST', '/v1/tables/deals/records/bulk', { key: fixture.key, json: { data: records(10) } });
  assert.equal(small.status, 202, `3 KiB fit the push limit: ${small.text}`);
  for (const chunked of [false, true]) {
    const large = await server.call('POST', '/v1/tables/deals/records/bulk', { key: fixture.key, json: { data: records(40) }, chunked });
    assert.equal(large.status, 413, large.text);
    assert.equal(large.body.detail, 'The request body exceeds 4096 bytes.');
  }
  const users = await server.call('PUT', '/v1/users/bulk', { key: fixture.key, json: { data: [{ email: 'user1@acme.example', name: 'x'.repeat(3000) }] } });
  assert.equal(users.status, 413, users.text);
});
