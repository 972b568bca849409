import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildFixture, fixtureLine, fixtureUser, type Fixture } from '../support/fixture.js';
import { shared, startTestServer, withOtherStore, type TestServer } from '../support/harness.js';
import { defaultStatus, statementsOf, v2OfV1Statement, v2OfV1TableRecord, walkV2, withoutTime } from '../support/v2Mapping.js';

/** The ids every compdata derives for these structures, on every server, engine and restart. */
const STATEMENTS = '2fa94265-8b29-8997-887d-7958c0ab8234';
const DEALS = '34e95ea1-8cbc-866c-8332-8f647ce1e7b6';
const statementsPath = `/v2/reporting/${STATEMENTS}/statements`;

/** The properties of an amount field and of a user reference (docs/rules.md#v2-reads). */
const AMOUNT = { value: { type: 'number', required: true }, currency: { type: 'string', required: true } };
const USER_REFERENCE = { id: { type: 'string', required: true }, email: { type: 'string', required: true } };

const v1Records = async (server: TestServer, key: string, path: string) => (await server.call('GET', path, { key })).body.data as Record<string, unknown>[];

describe('the v2 reads', () => {
  const fixture = shared(async (scope) => {
    let acme!: Fixture;
    let globex!: Fixture;
    const server = await startTestServer(scope, {}, async (store) => {
      acme = await buildFixture(store, { tenant: 'acme', records: 25, deals: 7 });
      globex = await buildFixture(store, { tenant: 'globex', records: 2, deals: 1 });
      await store.loadTenant('globex', {}, (writer) => writer.defineDataTable('forecasts', 'Forecasts', [{ key: 'probability', type: 'number' }]));
    });
    return { server, acme, globex };
  });

  test('GET /v2/data-structures: statement reporting, then each data table, with derived ids whose links answer [conf:v2-structure-id] [conf:v2-structure-name] [conf:v2-structure-type] [conf:v2-structure-total-records] [conf:v2-structure-links-fields] [conf:v2-structure-links-records] [conf:v2-record-commission-fields]', async () => {
    const { server, acme, globex } = await fixture();
    const listed = await server.call('GET', '/v2/data-structures', { key: acme.key });
    assert.equal(listed.status, 200);
    const [statements, deals, ...rest] = listed.body.data;
    assert.deepEqual(rest, []);
    assert.deepEqual(
      [statements.id, statements.name, statements.type, statements.total_records],
      [STATEMENTS, 'Statement reporting', 'statement_reporting', 25],
    );
    assert.deepEqual([deals.id, deals.name, deals.type, deals.total_records], [DEALS, 'Deals', 'record_reporting', 7]);
    assert.equal(statements.links.records, `${server.url}${statementsPath}`);
    assert.equal(deals.links.records, `${server.url}/v2/reporting/${DEALS}/records`);
    for (const link of [statements.links.fields, statements.links.records, deals.links.fields, deals.links.records]) {
      assert.equal((await server.call('GET', link.slice(server.url.length), { key: acme.key })).status, 200, link);
    }
    const other = await server.call('GET', '/v2/data-structures', { key: globex.key });
    assert.deepEqual(
      other.body.data.map((structure: { id: string; total_records: number }) => [structure.id, structure.total_records]),
      [[STATEMENTS, 2], [DEALS, 1], [other.body.data[2].id, 0]],
      'the same structure has the same id in every tenant; each tenant sees its own counts',
    );
    assert.equal((await server.call('GET', '/v2/data-structures')).status, 401);
  });

  test('fields: v1 discovery rendered for v2, prefixed keys and amounts with their currency; the hash moves with the structure [conf:v2-fields-envelope] [conf:v2-field-elements] [conf:v2-field-formats] [conf:v2-key-prefixes] [conf:v2-statement-payment]', async () => {
    const { server, acme } = await fixture();
    const statements = await server.call('GET', `/v2/data-structures/${STATEMENTS}/fields`, { key: acme.key });
    const byKey = new Map(statements.body.fields.map((field: { api_key: string }) => [field.api_key, field]));
    assert.deepEqual(
      [...byKey.keys()],
      [
        'standard.id', 'standard.date', 'standard.plan', 'standard.user', 'standard.payment', 'standard.target',
        'standard.target_achievement', 'standard.on_target_earning', 'standard.achievement', 'standard.status',
        'standard.total_commission', 'custom.new_arr', 'custom.region', 'custom.segment', 'standard.last_modified_at',
      ],
    );
    assert.equal(statements.body.count, 15);
    const pick = (key: string) => {
      const field = byKey.get(key) as Record<string, unknown>;
      return [field.type, field.format, field.origin, field.enum_values, field.properties];
    };
    assert.deepEqual(pick('standard.payment'), ['object', 'currency', 'standard', null, AMOUNT]);
    assert.deepEqual(pick('standard.user'), ['object', 'user_reference', 'standard', null, USER_REFERENCE]);
    assert.deepEqual(pick('standard.date'), ['string', 'date', 'standard', null, null]);
    assert.deepEqual(pick('standard.target_achievement'), ['number', 'percentage', 'standard', null, null]);
    assert.deepEqual(pick('custom.new_arr'), ['object', 'currency', 'custom', null, AMOUNT]);
    assert.deepEqual(pick('custom.region'), ['array', 'enum', 'custom', ['APAC', 'EMEA'], null]);
    assert.deepEqual(pick('standard.last_modified_at'), ['string', 'date-time', 'standard', null, null]);

    const deals = await server.call('GET', `/v2/data-structures/${DEALS}/fields`, { key: acme.key });
    assert.deepEqual(
      deals.body.fields.map((field: { api_key: string; format: string | null }) => [field.api_key, field.format]),
      [
        ['standard.id', null],
        ['datatable.name', null],
        ['datatable.owner_id', 'user_id'],
        ['datatable.close_date', 'date-time'],
        ['datatable.amount', 'currency'],
        ['standard.last_modified_at', 'date-time'],
      ],
    );
    assert.notEqual(deals.body.schema_hash, statements.body.schema_hash);
    const again = await server.call('GET', `/v2/data-structures/${STATEMENTS}/fields`, { key: acme.key });
    assert.equal(again.body.schema_hash, statements.body.schema_hash, 'unchanged structure, unchanged hash');
  });

  test('fields: created_at and currencies are null, a plain number is a float, the schema_hash is 32 hexadecimal characters, and the standard fields are the same in every tenant [conf:v2-field-format-float] [conf:v2-standard-fields-every-account] [conf:v2-field-created-at] [conf:v2-field-currencies] [conf:v2-schema-hash-length]', async () => {
    const { server, acme, globex } = await fixture();
    const fieldsOf = async (key: string, id: string) => (await server.call('GET', `/v2/data-structures/${id}/fields`, { key })).body;
    const statements = await fieldsOf(acme.key, STATEMENTS);
    for (const field of statements.fields) assert.deepEqual([field.created_at, field.currencies], [null, null], field.api_key);
    assert.match(statements.schema_hash, /^[0-9a-f]{32}$/);
    const forecasts = (await server.call('GET', '/v2/data-structures', { key: globex.key })).body.data[2].id;
    const probability = (await fieldsOf(globex.key, forecasts)).fields.find((field: { api_key: string }) => field.api_key === 'datatable.probability');
    assert.deepEqual([probability.type, probability.format], ['number', 'float']);
    const standard = (body: { fields: { api_key: string; type: string; format: string | null }[] }) =>
      body.fields.filter((field) => field.api_key.startsWith('standard.')).map((field) => [field.api_key, field.type, field.format]);
    assert.ok(standard(statements).some(([key]) => key === 'standard.payment'));
    assert.deepEqual(standard(await fieldsOf(globex.key, STATEMENTS)), standard(statements));
  });

  test('statements: the records of v1, in its order, mapped as documented, page by page by start_id [conf:v2-query-start-id] [conf:v2-data-prefixed-keys] [conf:v2-meta-next-start-id] [conf:v2-meta-has-more] [conf:v2-meta-next-url] [conf:v2-value-amount] [conf:v2-value-user] [conf:v2-value-date] [conf:v2-value-plain] [conf:v2-mapping]', async () => {
    const { server, acme } = await fixture();
    const v1 = await v1Records(server, acme.key, '/v1/reporting');
    const { records, pages } = await walkV2(server, acme.key, `${statementsPath}?limit=7`);
    assert.equal(pages, 4);
    assert.deepEqual(
      records.map((record) => withoutTime(record).fields),
      v1.map((record) => v2OfV1Statement(record, ['new_arr'], ['region', 'segment'], statementsOf(v1))),
    );
    // One record written out in full, as the rules page shows the mapping.
    assert.deepEqual(withoutTime(records[3]!).fields, {
      'standard.id': 'acme-r3',
      'standard.date': '2026-04-15',
      'standard.plan': 'AE 2026',
      'standard.user': { id: 'u0', email: 'user0@acme.example' },
      'standard.payment': { value: 3.5, currency: 'EUR' },
      'standard.target': { value: 1000, currency: 'EUR' },
      'standard.target_achievement': null,
      'standard.on_target_earning': { value: 60000, currency: 'EUR' },
      'standard.achievement': { value: 3, currency: 'EUR' },
      'custom.new_arr': { value: 30, currency: 'USD' },
      'standard.status': defaultStatus('2026-04'),
      'standard.total_commission': { value: 19, currency: 'EUR' },
      'custom.region': ['EMEA'],
      'custom.segment': [],
    });
    for (const record of records) assert.match(withoutTime(record).time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const from = await server.call('GET', `${statementsPath}?start_id=acme-r20&limit=2`, { key: acme.key });
    assert.deepEqual(from.body.data.map((record: Record<string, unknown>) => record['standard.id']), ['acme-r21', 'acme-r22']);
  });

  test('records: a data table, mapped as documented, in v1 order [conf:v2-records-data-tables]', async () => {
    const { server, acme } = await fixture();
    const v1 = await v1Records(server, acme.key, '/v1/tables/deals/records');
    const { records } = await walkV2(server, acme.key, `/v2/reporting/${DEALS}/records?limit=3`);
    assert.deepEqual(
      records.map((record) => withoutTime(record).fields),
      v1.map((record) => v2OfV1TableRecord(record, ['amount'])),
    );
    assert.deepEqual(withoutTime(records[2]!).fields, {
      'standard.id': 'acme-d2',
      'datatable.name': 'Deal 2',
      'datatable.owner_id': 'u2',
      'datatable.close_date': '2026-03-03T10:00:00.000Z',
      'datatable.amount': { value: 200, currency: 'EUR' },
    });
  });

  test('bad input and unknown structures: 400 with a pointer, 404 for a structure the tenant does not have [conf:v2-query-limit] [conf:v2-error-statuses]', async () => {
    const { server, acme, globex } = await fixture();
    const forecasts = (await server.call('GET', '/v2/data-structures', { key: globex.key })).body.data[2].id;
    const cases: [string, number, string?][] = [
      [`${statementsPath}?limit=0`, 400, '/query/limit'],
      [`${statementsPath}?limit=2001`, 400, '/query/limit'],
      [`${statementsPath}?start_id=never-a-record`, 400, '/query/start_id'],
      [`${statementsPath}?start_id=acme-d1`, 400, '/query/start_id'],
      [`/v2/reporting/${DEALS}/records?start_id=acme-r1`, 400, '/query/start_id'],
      // U+0000, which PostgreSQL cannot hold in text: no record has it, on either engine.
      [`${statementsPath}?start_id=acme-r1%00`, 400, '/query/start_id'],
      [`/v2/reporting/${DEALS}/records?start_id=%00`, 400, '/query/start_id'],
      [`${statementsPath}?last_modified_after=yesterday`, 400, '/query/last_modified_after'],
      [`${statementsPath}?last_modified_before=2026-13-01T00:00:00Z`, 400, '/query/last_modified_before'],
      [`/v2/reporting/${STATEMENTS}/records`, 404],
      [`/v2/reporting/${DEALS}/statements`, 404],
      [`/v2/reporting/${forecasts}/records`, 404],
      [`/v2/data-structures/${forecasts}/fields`, 404],
      ['/v2/reporting/00000000-0000-8000-8000-000000000000/records', 404],
    ];
    for (const [path, status, pointer] of cases) {
      const response = await server.call('GET', path, { key: acme.key });
      assert.equal(response.status, status, `${path}: ${response.text}`);
      if (pointer) assert.ok(response.body.errors.some((error: { pointer: string }) => error.pointer === pointer), `${path}: ${response.text}`);
    }
    assert.equal((await server.call('GET', `/v2/reporting/${forecasts}/records`, { key: globex.key })).status, 200);
  });

  test('a page carries an ETag: sent back, 304 while the data is unchanged', async () => {
    const { server, acme } = await fixture();
    const first = await server.call('GET', `${statementsPath}?limit=5`, { key: acme.key });
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^W\//);
    const again = await server.call('GET', `${statementsPath}?limit=5`, { key: acme.key, headers: { 'If-None-Match': etag } });
    assert.equal(again.status, 304);
  });

  test('v1 reporting answers say they are deprecated, when, and which v2 route replaces them [conf:v1-reporting-deprecated] [conf:v1-others-stay]', async () => {
    const { server, acme } = await fixture();
    for (const [path, successor] of [
      ['/v1/reporting?limit=1', statementsPath],
      ['/v1/reporting/fields', `/v2/data-structures/${STATEMENTS}/fields`],
    ]) {
      const response = await server.call('GET', path!, { key: acme.key });
      assert.equal(response.headers.get('deprecation'), '@1798761599');
      assert.equal(response.headers.get('sunset'), 'Thu, 31 Dec 2026 23:59:59 GMT');
      assert.equal(response.headers.get('link'), `<${server.url}${successor}>; rel="successor-version"`);
      assert.equal((await server.call('GET', successor!, { key: acme.key })).status, 200);
    }
    const tables = await server.call('GET', '/v1/tables/deals/records', { key: acme.key });
    assert.equal(tables.headers.get('deprecation'), null, 'the other v1 operations stay');
  });
});

describe('v2 reads after writes', () => {
  test('last_modified_after from the newest time seen returns exactly what a changed_since sync returns; times only increase [conf:v2-query-last-modified-after] [conf:v2-query-last-modified-before]', async (t) => {
    let acme!: Fixture;
    const server = await startTestServer(t, {}, async (store) => {
      acme = await buildFixture(store, { tenant: 'acme', records: 36, users: 3 });
    });
    const token = (await server.call('GET', '/v1/reporting?changed_since=0&limit=2000', { key: acme.key })).body.sync_token;
    const before = (await walkV2(server, acme.key, statementsPath)).records.map(withoutTime);
    const newest = before.map((record) => record.time).sort().at(-1)!;
    const put = await server.call('PUT', '/v1/users/groups/bulk', {
      key: acme.key,
      json: { data: [{ user: 'user1@acme.example', group_dimension: 'segment', group: 'SMB', start_date: '2026-06' }] },
    });
    assert.equal(put.status, 200, put.text);
    await server.store.loadTenant('acme', {}, async (writer) => {
      await writer.upsertUsers([{ ...fixtureUser('acme', 2), email: 'renamed2@acme.example' }]);
      await writer.finish();
    });
    const synced = (await server.call('GET', `/v1/reporting?changed_since=${token}&limit=2000`, { key: acme.key })).body.data as Record<string, unknown>[];
    const changed = (await walkV2(server, acme.key, `${statementsPath}?limit=5&last_modified_after=${newest}`)).records.map(withoutTime);
    assert.ok(synced.length > 0);
    assert.deepEqual(
      changed.map((record) => record.fields['standard.id']).sort(),
      synced.map((record) => record.id).sort(),
    );
    const byId = new Map(synced.map((record) => [record.id, record]));
    const statement = statementsOf(await v1Records(server, acme.key, '/v1/reporting?limit=2000'));
    for (const { fields, time } of changed) {
      assert.ok(time > newest, `${time} after ${newest}`);
      assert.deepEqual(fields, v2OfV1Statement(byId.get(fields['standard.id'])!, ['new_arr'], ['region', 'segment'], statement));
    }
    const oldest = changed.map((record) => record.time).sort()[0]!;
    const unchanged = (await walkV2(server, acme.key, `${statementsPath}?last_modified_before=${oldest}`)).records;
    assert.equal(unchanged.length + changed.length, 36, 'before the first change: every record it did not change');
    // The same instant written with an offset and a finer fraction means the same filter.
    const shifted = new Date(Date.parse(newest) + 2 * 3600_000).toISOString().replace('Z', '0999+02:00');
    const same = (await walkV2(server, acme.key, `${statementsPath}?last_modified_after=${encodeURIComponent(shifted)}`)).records;
    assert.deepEqual(same.map((record) => record['standard.id']).sort(), changed.map((record) => record.fields['standard.id']).sort());
  });

  test('times strictly increase with the changes, also when three writers (the server and two other stores) change the tenant faster than the clock moves', async (t) => {
    let acme!: Fixture;
    const server = await startTestServer(t, {}, async (store) => {
      acme = await buildFixture(store, { tenant: 'acme', records: 36, users: 3, deals: 0 });
    });
    // Record i is user i % 3's in month i % 12: a group of one month changes the records of that month only.
    await withOtherStore(server.database, (second) =>
      withOtherStore(server.database, async (third) => {
        const writers = [server.store, second, third];
        const principals = await Promise.all(writers.map(async (writer) => (await writer.authenticate(acme.key))!));
        for (let month = 0; month < 12; month += 1) {
          const item = { kind: 'group' as const, user: `user${month % 3}@acme.example`, dimension: 'segment', group: 'Moved', start: 2026 * 12 + month, end: 2026 * 12 + month };
          assert.ok('written' in (await writers[month % 3]!.bulkUpsert(principals[month % 3]!, [item])));
        }
      }),
    );
    const records = (await walkV2(server, acme.key, statementsPath)).records.map(withoutTime);
    const timeOfMonth = Array.from({ length: 12 }, (_, month) => {
      const times = new Set(records.filter((record) => Number(String(record.fields['standard.date']).slice(5, 7)) === month + 1).map((record) => record.time));
      assert.equal(times.size, 1, `the records of month ${month + 1} changed together`);
      return [...times][0]!;
    });
    for (let month = 1; month < 12; month += 1) assert.ok(timeOfMonth[month]! > timeOfMonth[month - 1]!, `${timeOfMonth[month]} after ${timeOfMonth[month - 1]}`);
  });

  test('a start_id of a record removed by a replace goes on after where the record stood', async (t) => {
    let acme!: Fixture;
    const server = await startTestServer(t, {}, async (store) => {
      acme = await buildFixture(store, { tenant: 'acme', records: 6, users: 2, deals: 4 });
    });
    await server.store.loadTenant('acme', { replace: true }, async (writer) => {
      await writer.defineMetricsAndDimensions(['new_arr'], []);
      await writer.upsertUsers([fixtureUser('acme', 0)]);
      await writer.upsertReportingRecords(Array.from({ length: 5 }, (_, i) => ({ ...fixtureLine('acme', i, 1), id: `fresh-${i}` })));
      await writer.finish();
    });
    const after = await server.call('GET', `${statementsPath}?start_id=acme-r2`, { key: acme.key });
    assert.equal(after.status, 200, after.text);
    assert.deepEqual(after.body.data.map((record: Record<string, unknown>) => record['standard.id']), ['fresh-3', 'fresh-4']);
    const past = await server.call('GET', `${statementsPath}?start_id=acme-r5`, { key: acme.key });
    assert.deepEqual([past.status, past.body.data, past.body.meta.has_more], [200, [], false]);
    const never = await server.call('GET', `${statementsPath}?start_id=acme-r9`, { key: acme.key });
    assert.equal(never.status, 400);
  });

  test('a new metric and a new dimension reach the v2 texts of the records already stored, and their times move', async (t) => {
    let acme!: Fixture;
    const server = await startTestServer(t, {}, async (store) => {
      acme = await buildFixture(store, { tenant: 'acme', records: 4, users: 2, deals: 0 });
    });
    const before = (await walkV2(server, acme.key, statementsPath)).records.map(withoutTime);
    await server.store.loadTenant('acme', {}, async (writer) => {
      await writer.defineMetricsAndDimensions(['new_arr', 'bonus'], ['region', 'segment', 'team']);
      await writer.finish();
    });
    const v1 = await v1Records(server, acme.key, '/v1/reporting?limit=2000');
    const after = (await walkV2(server, acme.key, statementsPath)).records.map(withoutTime);
    assert.equal(after.length, 4);
    assert.deepEqual(
      after.map((record) => record.fields),
      v1.map((record) => v2OfV1Statement(record, ['new_arr', 'bonus'], ['region', 'segment', 'team'], statementsOf(v1))),
    );
    after.forEach((record, i) => assert.ok(record.time > before[i]!.time, `${record.time} after ${before[i]!.time}`));
  });
});
