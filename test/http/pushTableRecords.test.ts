import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { shared, startTestServer, TEST_ENGINE, type TestServer } from '../support/harness.js';
import { until } from '../support/until.js';
import { countRequests } from '../../src/store/vocabulary/requestsInProgress.js';
import { openStore, type OpenStoreOptions } from '../../src/store/openStore.js';
import type { Store } from '../../src/store/store.js';
import { PUSHED_TABLE_FIELDS } from '../support/pushedTables.js';

/**
 * POST /v1/tables/{data_table_key}/records/bulk and GET /v1/imports/{import_id}
 * (docs/rules.md#table-imports) on one server. Each test pushes into a table of its own
 * (`t1`..`t9`, the fields of the fixture's deals table, each holding `rows` records
 * `{table}-{i}`), so that the tests share the server.
 */
const TABLES = ['t1', 't2', 't3', 't4', 't5', 't6', 't7', 't8', 't9'];
const row = (table: string, i: number, seats = i) => ({ id: `${table}-${i}`, name: `Row ${i}`, owner_id: `u${i % 3}`, seats, amount: i * 10, amount_currency: 'EUR' });

const served = shared(async (scope) => {
  let fixture!: Fixture;
  // The store the server serves: its count of the server's requests, which its imports give way to.
  let servedStore!: Store;
  const openServedStore = async (database: string, options: OpenStoreOptions) => (servedStore = await openStore(database, options));
  const server = await startTestServer(scope, { openServedStore }, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme', users: 3, records: 4 });
    await buildFixture(store, { tenant: 'other', users: 3, records: 1 });
    await store.loadTenant('acme', {}, async (writer) => {
      for (const table of TABLES) {
        await writer.defineDataTable(table, table.toUpperCase(), [...PUSHED_TABLE_FIELDS]);
        await writer.upsertTableRecords(table, [0, 1, 2].map((i) => row(table, i)));
      }
    });
  });
  return { server, key: fixture.key, requestsInProgress: servedStore.requestsInProgress };
});

const push = (server: TestServer, key: string, table: string, data: unknown[], query = '', headers: Record<string, string> = {}) =>
  server.call('POST', `/v1/tables/${table}/records/bulk${query}`, { key, json: { data }, headers });

/** The import once finished, read over HTTP. */
async function finished(server: TestServer, key: string, id: string) {
  return until(`import ${id} is finished`, async () => {
    const response = await server.call('GET', `/v1/imports/${id}`, { key });
    assert.equal(response.status, 200, response.text);
    return response.body.data_import.status === 'finished' && response.body.data_import;
  });
}

const ids = async (server: TestServer, key: string, table: string) =>
  (await server.call('GET', `/v1/tables/${table}/records?limit=100`, { key })).body.data.map((record: { id: string }) => record.id);

test('a push is answered 202 with its import, which upserts the records by id in the background [conf:ids-opaque] [conf:tables-field-keys] [conf:ingest-all-default] [conf:ingest-background] [conf:ingest-status-code]', async () => {
  const { server, key } = await served();
  const before = await server.call('GET', '/v1/tables/t1/records?changed_since=0', { key });
  const response = await push(server, key, 't1', [row('t1', 1, 99), row('t1', 3)]);
  assert.equal(response.status, 202, response.text);
  assert.match(response.body.import_id, /^imp_[0-9a-f]{24}$/);
  assert.equal(response.headers.get('location'), `${server.url}/v1/imports/${response.body.import_id}`);
  const done = await finished(server, key, response.body.import_id);
  assert.equal(done.progress, 100);
  assert.ok(done.launched_at <= done.finished_at && done.created_at <= done.launched_at);
  assert.deepEqual(done.data_tables_details, [{ type: 'api', status: 'finished', data_table_key: 't1', progress: 100, number_of_records: 2, error: null, ignored_fields: [] }]);
  assert.deepEqual(await ids(server, key, 't1'), ['t1-0', 't1-1', 't1-2', 't1-3'], 'updated in place, the new one appended');
  const records = (await server.call('GET', '/v1/tables/t1/records', { key })).body.data;
  assert.deepEqual(records[1], { id: 't1-1', name: 'Row 1', owner_id: 'u1', seats: 99, amount: 10, amount_currency: 'EUR' });
  const changes = await server.call('GET', `/v1/tables/t1/records?changed_since=${encodeURIComponent(before.body.sync_token)}`, { key });
  assert.deepEqual(changes.body.data.map((record: { id: string }) => record.id), ['t1-1', 't1-3'], 'a sync sees both');
  assert.deepEqual(await server.store.check(), []);
});

test('all=true replaces the table: the records before are gone, earlier sync tokens of the table only are 410, v2 reads see the change [conf:ingest-all]', async () => {
  const { server, key } = await served();
  const tableToken = (await server.call('GET', '/v1/tables/t2/records?changed_since=0', { key })).body.sync_token;
  const reportingToken = (await server.call('GET', '/v1/reporting?changed_since=0', { key })).body.sync_token;
  const structures = (await server.call('GET', '/v2/data-structures', { key })).body.data;
  const t2 = structures.find((structure: { name: string }) => structure.name === 'T2').id;
  const since = new Date().toISOString();
  const response = await push(server, key, 't2', [row('t2', 7), row('t2', 1, 42)], '?all=true');
  assert.equal(response.status, 202, response.text);
  await finished(server, key, response.body.import_id);
  assert.deepEqual(await ids(server, key, 't2'), ['t2-7', 't2-1']);
  assert.equal((await server.call('GET', `/v1/tables/t2/records?changed_since=${encodeURIComponent(tableToken)}`, { key })).status, 410);
  assert.equal((await server.call('GET', `/v1/reporting?changed_since=${encodeURIComponent(reportingToken)}`, { key })).status, 200);
  const v2 = await server.call('GET', `/v2/reporting/${t2}/records?last_modified_after=${encodeURIComponent(since)}`, { key });
  assert.equal(v2.status, 200, v2.text);
  assert.deepEqual(v2.body.data.map((record: Record<string, unknown>) => record['standard.id']), ['t2-7', 't2-1']);
  const removed = await server.sql.rows(`SELECT id FROM removed_records WHERE structure = 't2' ORDER BY id`);
  assert.deepEqual(removed.map(([id]) => id), ['t2-0', 't2-1', 't2-2']);
  assert.deepEqual(await server.store.check(), []);
});

test('an import while the server has requests in progress throughout (it gives way to them between batches) is imported whole', async () => {
  const { server, key, requestsInProgress } = await served();
  countRequests(requestsInProgress, +1); // a request that lasts the whole import
  try {
    const rows = Array.from({ length: 1200 }, (_, i) => row('t9', i, i + 1));
    const response = await push(server, key, 't9', rows);
    assert.equal(response.status, 202, response.text);
    const done = await finished(server, key, response.body.import_id);
    assert.deepEqual(
      done.data_tables_details.map((table: { status: string; number_of_records: number }) => [table.status, table.number_of_records]),
      [['finished', 1200]],
    );
  } finally {
    countRequests(requestsInProgress, -1);
  }
  const stored = await server.call('GET', '/v1/tables/t9/records?limit=2000', { key });
  assert.equal(stored.body.data.length, 1200);
  assert.deepEqual(stored.body.data[1199], row('t9', 1199, 1200));
});

test('lines that do not fit are not imported and listed with their row and why; the other lines are (in warning) [conf:ingest-parse-error-table] [conf:ingest-warning] [conf:import-table-error] [conf:import-parsing-error-details] [conf:import-parsing-error-example]', async () => {
  const { server, key } = await served();
  const bad = [row('t3', 5), { ...row('t3', 6), seats: 'many' }, { id: 't3-7', color: 'red' }, { ...row('t3', 8), owner_id: 'nobody' }, { name: 'no id' }];
  const response = await push(server, key, 't3', bad);
  assert.equal(response.status, 202, response.text);
  const done = await finished(server, key, response.body.import_id);
  assert.equal(done.has_error, true);
  const [table] = done.data_tables_details;
  assert.deepEqual([table.status, table.number_of_records], ['finished', 2]);
  assert.equal(table.error.title, 'ParsingError');
  assert.match(table.error.description, /^3 lines of the import do not fit the table t3: they were not imported; the other lines were \(2 records\)/);
  assert.deepEqual(
    table.error.parsing_error_details.map((line: { line_number: number; row: unknown; details: string }) => [line.line_number, line.row, line.details]),
    [
      [2, bad[1], 'seats: must be a number'],
      [4, bad[3], 'owner_id: no user with id nobody'],
      [5, bad[4], 'id: must be a non-empty string'],
    ],
  );
  assert.deepEqual(table.ignored_fields, [{ field: 'color', records: 1 }]);
  assert.deepEqual(await ids(server, key, 't3'), ['t3-0', 't3-1', 't3-2', 't3-5', 't3-7'], 'the lines that fit, and no other');
  assert.deepEqual(await server.store.check(), []);
});

test('an id holding U+0000: imported on SQLite; on PostgreSQL, which cannot store it as text, its line is refused with why', async () => {
  const { server, key } = await served();
  const lines = [row('t7', 5), { ...row('t7', 6), id: 't7-\u0000' }];
  const response = await push(server, key, 't7', lines);
  assert.equal(response.status, 202, response.text);
  const [table] = (await finished(server, key, response.body.import_id)).data_tables_details;
  if (TEST_ENGINE === 'sqlite') {
    assert.equal(table.error, null);
    assert.deepEqual(await ids(server, key, 't7'), ['t7-0', 't7-1', 't7-2', 't7-5', 't7-\u0000']);
  } else {
    assert.equal(table.error.title, 'ParsingError');
    assert.deepEqual(
      table.error.parsing_error_details.map((line: { line_number: number; details: string }) => [line.line_number, line.details]),
      [[2, 'id: must not contain the character U+0000']],
    );
    assert.equal(table.number_of_records, 1);
    assert.deepEqual(await ids(server, key, 't7'), ['t7-0', 't7-1', 't7-2', 't7-5'], 'the good line imported');
  }
});

test('a record with a "__proto__" key has it ignored, counted as the key it is: no object of the server is changed by it', async () => {
  const { server, key } = await served();
  const raw = `{"data": [${JSON.stringify(row('t8', 5))}, {"id": "t8-6", "__proto__": {"polluted": true}}]}`;
  const response = await server.call('POST', '/v1/tables/t8/records/bulk', { key, raw, headers: { 'Content-Type': 'application/json' } });
  assert.equal(response.status, 202, response.text);
  const [table] = (await finished(server, key, response.body.import_id)).data_tables_details;
  assert.deepEqual([table.error, table.number_of_records, table.ignored_fields], [null, 2, [{ field: '__proto__', records: 1 }]]);
  assert.equal(({} as { polluted?: boolean }).polluted, undefined);
  assert.deepEqual(await ids(server, key, 't8'), ['t8-0', 't8-1', 't8-2', 't8-5', 't8-6']);
  const stored = (await server.call('GET', '/v1/tables/t8/records', { key })).body.data[4];
  assert.deepEqual(Object.keys(stored), ['id', 'name', 'owner_id', 'seats', 'amount', 'amount_currency']);
});

test('pushes with a debounce join one import; an id pushed twice counts once, with its last record [conf:ingest-debounce] [conf:import-stacks]', async () => {
  const { server, key } = await served();
  const first = await push(server, key, 't4', [row('t4', 5), row('t4', 6)], '?debounce=30&all=true');
  const second = await push(server, key, 't4', [row('t4', 6, 60)], '?debounce=30');
  const third = await push(server, key, 't5', [row('t5', 9)], '?debounce=0');
  assert.deepEqual([first.status, second.status, third.status], [202, 202, 202]);
  assert.equal(second.body.import_id, first.body.import_id);
  assert.equal(third.body.import_id, first.body.import_id, 'a push without debounce joins it and starts it');
  const done = await finished(server, key, first.body.import_id);
  assert.deepEqual(
    done.data_tables_details.map((table: { data_table_key: string; number_of_records: number }) => [table.data_table_key, table.number_of_records]),
    [['t4', 2], ['t5', 1]],
  );
  assert.deepEqual(await ids(server, key, 't4'), ['t4-5', 't4-6']);
  assert.equal((await server.call('GET', '/v1/tables/t4/records', { key })).body.data[1].seats, 60);
});

test('the same push again with its Idempotency-Key answers the first import and imports nothing twice', async () => {
  const { server, key } = await served();
  const headers = { 'Idempotency-Key': 'push-t6-once' };
  const first = await push(server, key, 't6', [row('t6', 3)], '', headers);
  await finished(server, key, first.body.import_id);
  const again = await push(server, key, 't6', [row('t6', 3)], '', headers);
  assert.equal(again.status, 202, again.text);
  assert.equal(again.body.import_id, first.body.import_id);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  const other = await push(server, key, 't6', [row('t6', 4)], '', headers);
  assert.equal(other.status, 422, other.text);
  assert.equal(Number(await server.sql.value(`SELECT count(*) FROM imports WHERE id = ?`, first.body.import_id)), 1);
  assert.deepEqual(await ids(server, key, 't6'), ['t6-0', 't6-1', 't6-2', 't6-3']);
});

test('an import waiting for its debounce is scheduled, with no launch, no finish and no count yet; once run, each element of its state says so [conf:import-envelope] [conf:import-id] [conf:import-created-at] [conf:import-launched-at] [conf:import-finished-at] [conf:import-status] [conf:import-progress] [conf:import-tables] [conf:import-table-type] [conf:import-table-status] [conf:import-table-key] [conf:import-table-progress] [conf:import-table-count]', async () => {
  const { server, key } = await served();
  const waiting = await push(server, key, 't5', [row('t5', 20)], '?debounce=3600');
  assert.equal(waiting.status, 202, waiting.text);
  const state = await server.call('GET', `/v1/imports/${waiting.body.import_id}`, { key });
  assert.equal(state.status, 200, state.text);
  const scheduled = state.body.data_import;
  assert.deepEqual(Object.keys(state.body), ['data_import']);
  assert.equal(scheduled.id, waiting.body.import_id);
  assert.match(scheduled.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  assert.deepEqual([scheduled.status, scheduled.progress, scheduled.launched_at, scheduled.finished_at], ['scheduled', 0, null, null]);
  assert.deepEqual(scheduled.data_tables_details, [{ type: 'api', status: 'scheduled', data_table_key: 't5', progress: 0, number_of_records: null, error: null, ignored_fields: [] }]);

  const joined = await push(server, key, 't5', [row('t5', 21)]);
  assert.equal(joined.body.import_id, waiting.body.import_id, 'a push without debounce joins it and starts it');
  const done = await finished(server, key, waiting.body.import_id);
  assert.equal(done.id, waiting.body.import_id);
  assert.equal(done.created_at, scheduled.created_at);
  assert.match(done.launched_at, /Z$/);
  assert.match(done.finished_at, /Z$/);
  assert.equal(done.progress, 100);
  assert.deepEqual(done.data_tables_details, [{ type: 'api', status: 'finished', data_table_key: 't5', progress: 100, number_of_records: 2, error: null, ignored_fields: [] }]);
  assert.equal(done.has_error, false);
});

test('refusals: an unknown table, another tenant’s import, a body that is not a push [conf:tables-exist-first] [conf:ingest-debounce-minimum] [conf:ingest-envelope]', async () => {
  const { server, key } = await served();
  assert.equal((await push(server, key, 'nope', [row('nope', 1)])).status, 404);
  const other = (await server.store.createKey('other')).key;
  const accepted = await push(server, key, 't5', [], '?debounce=3600');
  assert.equal(accepted.status, 202, accepted.text);
  assert.equal((await server.call('GET', `/v1/imports/${accepted.body.import_id}`, { key: other })).status, 404);
  assert.equal((await server.call('GET', '/v1/imports/imp_000000000000000000000000', { key })).status, 404);
  const cases: [string, string, string][] = [
    ['[]', '', 'must be an object'],
    ['{"data": {}}', '/data', 'must be array'],
    ['{"data": [1]}', '/data/0', 'must be object'],
    ['{"data": [], "more": 1}', '/more', 'is not allowed'],
    ['{"data": [{"id": "x",', '/data/0', 'not valid JSON'],
    ['{}', '', "required property 'data'"],
    ['{"data": []', '', 'not valid JSON'],
    [' ', '', 'not valid JSON'],
    ['{"data": nope}', '/data', 'not valid JSON'],
    ['{"data": [], "data": []}', '/data', 'is given twice'],
    ['{"data": [{"id": "x", "id": "y"}]}', '/data/0', 'is given twice'],
    ['{"data": [{"id": "x", "seats": 1e999}]}', '/data/0', 'number out of range'],
  ];
  const utf8 = (text: string) => Buffer.from(text, 'utf8');
  const notUtf8: [string, Buffer][] = [
    ['a byte that is no UTF-8', Buffer.concat([utf8('{"data": [{"id": "'), Buffer.from([0xff]), utf8('"}]}')])],
    ['a character cut at the end', utf8('{"data": []}é').subarray(0, -1)],
  ];
  const sent: [string, string | Buffer, string, string][] = [
    ...cases.map(([raw, pointer, message]): [string, string, string, string] => [raw, raw, pointer, message]),
    ...notUtf8.map(([what, raw]): [string, Buffer, string, string] => [what, raw, '', 'is not valid UTF-8']),
  ];
  for (const [what, raw, pointer, message] of sent) {
    const response = await server.call('POST', '/v1/tables/t5/records/bulk', { key, raw, headers: { 'Content-Type': 'application/json' } });
    assert.equal(response.status, 400, `${what}: ${response.text}`);
    assert.equal(response.body.errors[0].pointer, pointer, what);
    assert.match(response.body.errors[0].message, new RegExp(message), what);
  }
  const query = await push(server, key, 't5', [], '?debounce=-1');
  assert.equal(query.status, 400, query.text);
});
