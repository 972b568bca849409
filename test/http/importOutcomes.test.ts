import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { exchange, serveDatabase, shared, startTestServer, TEST_ENGINE, type TestServer } from '../support/harness.js';
import { BEFORE_IMPORT_WARNINGS, runUndo } from '../support/undoMigrations.js';
import { until } from '../support/until.js';
import { PUSHED_TABLE_FIELDS } from '../support/pushedTables.js';

/**
 * What `GET /v1/imports/{import_id}` says of an import as the hosted reference does
 * (docs/rules.md#table-imports): properties that are not fields ignored and counted, a failed
 * table with no count of records, the import's `has_error`, and lines that do not fit left out
 * of a table whose other lines are imported. Each test pushes into tables of its own (`k1`..`k8`,
 * each holding `r0`..`r2`), so that the tests share the server.
 */
const TABLES = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8'];
const row = (table: string, i: number, seats = i) => ({ id: `${table}-${i}`, name: `Row ${i}`, owner_id: `u${i % 3}`, seats, amount: i * 10, amount_currency: 'EUR' });

async function withTables(fixtureOf: (fixture: Fixture) => void, store: TestServer['store']) {
  fixtureOf(await buildFixture(store, { tenant: 'acme', users: 3, records: 2, deals: 1 }));
  await store.loadTenant('acme', {}, async (writer) => {
    for (const table of TABLES) {
      await writer.defineDataTable(table, table.toUpperCase(), [...PUSHED_TABLE_FIELDS]);
      await writer.upsertTableRecords(table, [0, 1, 2].map((i) => row(table, i)));
    }
  });
}

const served = shared(async (scope) => {
  let fixture!: Fixture;
  const server = await startTestServer(scope, {}, (store) => withTables((made) => (fixture = made), store));
  return { server, key: fixture.key };
});

const push = (server: TestServer, key: string, table: string, data: unknown[], query = '') =>
  server.call('POST', `/v1/tables/${table}/records/bulk${query}`, { key, json: { data } });

async function finished(base: string, key: string, id: string) {
  return until(`import ${id} is finished`, async () => {
    const response = await exchange(base, 'GET', `/v1/imports/${id}`, { key });
    assert.equal(response.status, 200, response.text);
    return response.body.data_import.status === 'finished' && response.body.data_import;
  });
}

const records = async (server: TestServer, key: string, table: string) => (await server.call('GET', `/v1/tables/${table}/records?limit=100`, { key })).body.data;
const ids = async (server: TestServer, key: string, table: string) => (await records(server, key, table)).map((record: { id: string }) => record.id);

test('keys that are not field API names are ignored: the import looks successful, the records come without them, and the table says which keys in how many records [conf:ingest-unknown-keys]', async () => {
  const { server, key } = await served();
  const pushed = await push(server, key, 'k1', [
    { id: 'k1-1', Name: 'Renamed', seats: 7, region: 'EMEA' },
    { id: 'k1-5', name: 'New', Name: 'Shadow', amount: 5, amount_currency: 'USD' },
  ]);
  assert.equal(pushed.status, 202, pushed.text);
  const done = await finished(server.url, key, pushed.body.import_id);
  assert.equal(done.has_error, false);
  assert.deepEqual(done.data_tables_details, [
    {
      type: 'api',
      status: 'finished',
      data_table_key: 'k1',
      progress: 100,
      number_of_records: 2,
      error: null,
      ignored_fields: [
        { field: 'Name', records: 2 },
        { field: 'region', records: 1 },
      ],
    },
  ]);
  const stored = await records(server, key, 'k1');
  assert.deepEqual(stored[1], { id: 'k1-1', name: null, owner_id: null, seats: 7, amount: null, amount_currency: null }, 'the field under its API name only');
  assert.deepEqual(stored[3], { id: 'k1-5', name: 'New', owner_id: null, seats: null, amount: 5, amount_currency: 'USD' });
  assert.deepEqual(await server.store.check(), []);
});

test('records keyed by the field API names (with an amount\'s _currency) ignore nothing', async () => {
  const { server, key } = await served();
  const pushed = await push(server, key, 'k2', [row('k2', 4)]);
  const [table] = (await finished(server.url, key, pushed.body.import_id)).data_tables_details;
  assert.deepEqual([table.error, table.number_of_records, table.ignored_fields], [null, 1, []]);
});

test('a table that failed (no line fits) has number_of_records null and nothing of it written, even with all=true [conf:import-failed-count-null]', async () => {
  const { server, key } = await served();
  const pushed = await push(server, key, 'k3', [{ ...row('k3', 5), seats: 'many', region: 'EMEA' }, { name: 'no id' }], '?all=true');
  const done = await finished(server.url, key, pushed.body.import_id);
  const [table] = done.data_tables_details;
  assert.deepEqual([table.status, table.progress, table.number_of_records, table.ignored_fields], ['finished', 100, null, []]);
  assert.equal(table.error.title, 'ParsingError');
  assert.match(table.error.description, /^2 lines of the import do not fit the table k3: nothing of the table was imported\.$/);
  assert.deepEqual(
    table.error.parsing_error_details.map((line: { line_number: number; details: string }) => [line.line_number, line.details]),
    [
      [1, 'seats: must be a number'],
      [2, 'id: must be a non-empty string'],
    ],
  );
  assert.deepEqual(await ids(server, key, 'k3'), ['k3-0', 'k3-1', 'k3-2'], 'all=true deleted nothing');
});

test('has_error is false while scheduled and for an import without errors, and true once any table of it has an error [conf:import-error-flag]', async () => {
  const { server, key } = await served();
  const clean = await push(server, key, 'k4', [row('k4', 5)]);
  assert.equal((await finished(server.url, key, clean.body.import_id)).has_error, false);

  const first = await push(server, key, 'k4', [row('k4', 6)], '?debounce=3600');
  const waiting = await server.call('GET', `/v1/imports/${first.body.import_id}`, { key });
  assert.deepEqual([waiting.body.data_import.status, waiting.body.data_import.has_error], ['scheduled', false]);
  assert.deepEqual(waiting.body.data_import.data_tables_details[0].ignored_fields, []);
  const second = await push(server, key, 'k5', [{ id: 'k5-9', seats: 'many' }]);
  assert.equal(second.body.import_id, first.body.import_id, 'the push without debounce joins the import and starts it');
  const done = await finished(server.url, key, first.body.import_id);
  assert.equal(done.has_error, true);
  assert.deepEqual(
    done.data_tables_details.map((table: { data_table_key: string; number_of_records: number | null; error: { title: string } | null }) => [
      table.data_table_key,
      table.number_of_records,
      table.error?.title ?? null,
    ]),
    [
      ['k4', 1, null],
      ['k5', null, 'ParsingError'],
    ],
  );
  assert.deepEqual(await ids(server, key, 'k4'), ['k4-0', 'k4-1', 'k4-2', 'k4-5', 'k4-6'], 'the other table was imported');
});

test('with all=true, a table in warning holds the lines that fit only; lines are numbered on across the pushes of one import', async () => {
  const { server, key } = await served();
  const first = await push(server, key, 'k6', [row('k6', 7), { ...row('k6', 8), owner_id: 'nobody' }], '?all=true&debounce=3600');
  const second = await push(server, key, 'k6', [{ id: 'k6-9', amount_currency: 'euros' }, row('k6', 1, 11)]);
  assert.equal(second.body.import_id, first.body.import_id);
  const done = await finished(server.url, key, first.body.import_id);
  assert.equal(done.has_error, true);
  const [table] = done.data_tables_details;
  assert.equal(table.number_of_records, 2);
  assert.match(table.error.description, /^2 lines of the import do not fit the table k6: they were not imported; the other lines were \(2 records\)\.$/);
  assert.deepEqual(
    table.error.parsing_error_details.map((line: { line_number: number; row: unknown; details: string }) => [line.line_number, line.details]),
    [
      [2, 'owner_id: no user with id nobody'],
      [3, 'amount_currency: must be a currency code'],
    ],
  );
  assert.deepEqual(await ids(server, key, 'k6'), ['k6-7', 'k6-1']);
  assert.deepEqual(await server.store.check(), []);
});

test('a database whose imports were stored before (a failed table with 0 records, no ignored keys) reads its failed tables as null after the upgrade', async (t) => {
  let fixture!: Fixture;
  const server = await startTestServer(t, {}, (store) => withTables((made) => (fixture = made), store));
  // One after the other: a push joins an import that has not started yet.
  const failed = await push(server, fixture.key, 'k7', [{ id: 'k7-5', seats: 'many' }]);
  await finished(server.url, fixture.key, failed.body.import_id);
  const good = await push(server, fixture.key, 'k8', [row('k8', 5)]);
  await finished(server.url, fixture.key, good.body.import_id);
  await server.close();
  // A statement at a time: Citus sends a DDL statement to its workers as the text it came in.
  await runUndo(server.sql, BEFORE_IMPORT_WARNINGS[TEST_ENGINE]);
  const stored = await server.sql.rows('SELECT data_table_key, records FROM import_tables ORDER BY data_table_key');
  assert.deepEqual(stored.map(([table, count]) => [table, Number(count)]), [['k7', 0], ['k8', 1]], 'as the build before stored them');

  const upgraded = await serveDatabase(server.database);
  try {
    const [before, after] = [await finished(upgraded.url, fixture.key, failed.body.import_id), await finished(upgraded.url, fixture.key, good.body.import_id)];
    assert.equal(before.has_error, true);
    assert.deepEqual(before.data_tables_details.map((table: { number_of_records: number | null; ignored_fields: unknown[] }) => [table.number_of_records, table.ignored_fields]), [[null, []]]);
    assert.equal(after.has_error, false);
    assert.deepEqual(after.data_tables_details.map((table: { number_of_records: number | null; ignored_fields: unknown[] }) => [table.number_of_records, table.ignored_fields]), [[1, []]]);
    const again = await exchange(upgraded.url, 'POST', '/v1/tables/k8/records/bulk', { key: fixture.key, json: { data: [{ ...row('k8', 6), extra: 1 }] } });
    const [table] = (await finished(upgraded.url, fixture.key, again.body.import_id)).data_tables_details;
    assert.deepEqual(table.ignored_fields, [{ field: 'extra', records: 1 }], 'the new column is written');
  } finally {
    await upgraded.close();
  }
});
