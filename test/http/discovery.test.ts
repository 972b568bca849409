import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadDocument } from '../../src/http/document.js';
import { buildFixture, fixtureLine, type Fixture } from '../support/fixture.js';
import { startTestServer, type TestServer } from '../support/harness.js';

/**
 * Discovery (issue 14, part 1): `GET /v1/tables`, `GET /v1/tables/{key}/fields` and
 * `GET /v1/reporting/fields`. The listed fields are held against records the API actually
 * returns, and against the contract's record schema.
 */
type Field = { name: string; type: string; nullable: boolean; groups?: string[] };

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const CURRENCY = /^[A-Z]{3}$/;

/** Whether `value` is a value of a field of type `type` (null aside). */
function fits(field: Field, value: unknown): boolean {
  if (value === null) return field.nullable;
  switch (field.type) {
    case 'string':
    case 'user_id':
      return typeof value === 'string';
    case 'number':
    case 'amount':
      return typeof value === 'number';
    case 'currency':
      return typeof value === 'string' && CURRENCY.test(value);
    case 'date':
      return typeof value === 'string' && DATE.test(value);
    case 'datetime':
      return typeof value === 'string' && DATETIME.test(value);
    case 'user':
      return typeof value === 'object' && !Array.isArray(value) && typeof (value as { id?: unknown }).id === 'string';
    case 'groups':
      return Array.isArray(value) && value.every((name) => field.groups!.includes(name));
    default:
      return false;
  }
}

function assertRecordsFit(fields: Field[], records: Record<string, unknown>[]) {
  assert.ok(records.length > 0);
  for (const record of records) {
    assert.deepEqual(Object.keys(record), fields.map((f) => f.name), 'the fields, in the records’ order');
    for (const field of fields) assert.ok(fits(field, record[field.name]), `${field.name}: ${JSON.stringify(record[field.name])} is no ${field.type}`);
  }
}

test('discovery (extensions)', async (t) => {
  // One server for these read-only checks.
  let acme!: Fixture;
  let globex!: Fixture;
  const server = await startTestServer(t, {}, async (store) => {
    acme = await buildFixture(store, { tenant: 'acme', records: 30, deals: 9 });
    globex = await buildFixture(store, { tenant: 'globex', records: 3 });
    await store.loadTenant('globex', {}, (writer) => writer.defineDataTable('forecasts', 'Forecasts', [{ key: 'due', type: 'date' }]));
  });

  await t.test('GET /v1/tables lists each table with its count and the URLs of its records and fields', async () => {
    const listing = await server.call('GET', '/v1/tables', { key: acme.key });
    assert.equal(listing.status, 200);
    assert.equal(listing.body.count, 1);
    assert.deepEqual(listing.body.data, [
      { key: 'deals', name: 'Deals', record_count: 9, records_url: `${server.url}/v1/tables/deals/records`, fields_url: `${server.url}/v1/tables/deals/fields` },
    ]);
    const records = await server.call('GET', listing.body.data[0].records_url.slice(server.url.length), { key: acme.key });
    assert.equal(records.body.count, 9);
    const fields = await server.call('GET', listing.body.data[0].fields_url.slice(server.url.length), { key: acme.key });
    assert.equal(fields.status, 200);
    const other = await server.call('GET', '/v1/tables', { key: globex.key });
    assert.deepEqual(other.body.data.map((t: { key: string }) => t.key), ['deals', 'forecasts']);
    assert.notEqual(other.body.schema_hash, listing.body.schema_hash);
  });

  await t.test("a table's fields are its records' fields, typed as the records hold them", async () => {
    const fields = await server.call('GET', '/v1/tables/deals/fields', { key: acme.key });
    assert.equal(fields.body.table, 'deals');
    assert.deepEqual(fields.body.data, [
      { name: 'id', type: 'string', nullable: false },
      { name: 'name', type: 'string', nullable: true },
      { name: 'owner_id', type: 'user_id', nullable: true },
      { name: 'close_date', type: 'datetime', nullable: true },
      { name: 'amount', type: 'amount', nullable: true },
      { name: 'amount_currency', type: 'currency', nullable: true },
    ]);
    assert.equal(fields.body.count, 6);
    assertRecordsFit(fields.body.data, (await server.call('GET', '/v1/tables/deals/records', { key: acme.key })).body.data);
  });

  await t.test("the reporting fields are the records' fields: standard ones, each metric with its currency, each dimension with its groups", async () => {
    const fields = await server.call('GET', '/v1/reporting/fields', { key: acme.key });
    assert.equal(fields.status, 200);
    const listed: Field[] = fields.body.data;
    assert.deepEqual(listed.slice(-4), [
      { name: 'new_arr', type: 'amount', nullable: true },
      { name: 'new_arr_currency', type: 'currency', nullable: false },
      { name: 'region', type: 'groups', nullable: false, groups: ['APAC', 'EMEA'] },
      { name: 'segment', type: 'groups', nullable: false, groups: [] },
    ]);
    const records = (await server.call('GET', '/v1/reporting', { key: acme.key })).body.data;
    assertRecordsFit(listed, records);
    assert.ok(records.some((r: { new_arr: unknown }) => r.new_arr === null) && records.some((r: { region: string[] }) => r.region.length > 0));
  });

  await t.test("a standard field may be null exactly when the contract's record schema allows null", async () => {
    const schema = (loadDocument().definition.components as any).schemas.StatementReportingRecordModel;
    const { body } = await server.call('GET', '/v1/reporting/fields', { key: acme.key });
    for (const name of schema.required as string[]) {
      const field = (body.data as Field[]).find((f) => f.name === name)!;
      const type = schema.properties[name].type;
      assert.equal(field.nullable, Array.isArray(type) && type.includes('null'), name);
    }
  });

  await t.test('an unknown table, or one of another tenant, is the 404 of its records', async () => {
    for (const key of ['forecasts', 'nothing']) {
      const fields = await server.call('GET', `/v1/tables/${key}/fields`, { key: acme.key });
      const records = await server.call('GET', `/v1/tables/${key}/records`, { key: acme.key });
      assert.equal(fields.status, 404);
      assert.deepEqual(fields.body, records.body);
    }
  });

  await t.test('a key is required, and unknown query fields are refused with a pointer', async () => {
    for (const path of ['/v1/tables', '/v1/tables/deals/fields', '/v1/reporting/fields']) {
      assert.equal((await server.call('GET', path)).status, 401, path);
      assert.equal((await server.call('GET', path, { key: 'cd_nope' })).status, 401, path);
      const odd = await server.call('GET', `${path}?limit=5`, { key: acme.key });
      assert.equal(odd.status, 400, path);
      assert.deepEqual(odd.body.errors, [{ pointer: '/query/limit', message: 'is not allowed' }]);
    }
  });
});

describe('schema_hash', () => {
  /** The three hashes a client would keep. */
  const hashes = async (server: TestServer, key: string) => ({
    tables: (await server.call('GET', '/v1/tables', { key })).body.schema_hash,
    deals: (await server.call('GET', '/v1/tables/deals/fields', { key })).body.schema_hash,
    reporting: (await server.call('GET', '/v1/reporting/fields', { key })).body.schema_hash,
  });

  test('changes when a metric, dimension, group or table appears; not when only values change', async (t) => {
    let fixture!: Fixture;
    const server = await startTestServer(t, {}, async (store) => {
      fixture = await buildFixture(store, { tenant: 'acme', records: 12 });
    });
    const { key } = fixture;
    const load = (work: Parameters<typeof server.store.loadTenant>[2]) => server.store.loadTenant('acme', {}, work);
    const first = await hashes(server, key);

    // Values only: records updated and added, a table record added, a group attribution with a known group.
    await load(async (writer) => {
      await writer.upsertReportingRecords([{ ...fixtureLine('acme', 3, 3), payment: 99 }, fixtureLine('acme', 50, 3)]);
      await writer.upsertTableRecords('deals', [{ id: 'extra', name: 'Extra', amount: 1, amount_currency: 'USD' }]);
      await writer.finish();
    });
    const put = await server.call('PUT', '/v1/users/groups/bulk', {
      key,
      json: { data: [{ user: 'user1@acme.example', group_dimension: 'region', group: 'EMEA', start_date: '2026-01', end_date: null }] },
    });
    assert.equal(put.status, 200);
    assert.deepEqual(await hashes(server, key), first, 'values changed, structure did not');

    // A new group of a dimension: the reporting fields change, nothing else.
    await server.call('PUT', '/v1/users/groups/bulk', {
      key,
      json: { data: [{ user: 'user2@acme.example', group_dimension: 'segment', group: 'SMB', start_date: '2026-01', end_date: null }] },
    });
    const withGroup = await hashes(server, key);
    assert.notEqual(withGroup.reporting, first.reporting);
    assert.deepEqual({ ...withGroup, reporting: first.reporting }, first);

    // A new metric, then a new dimension.
    await load((writer) => writer.defineMetricsAndDimensions(['new_arr', 'bonus'], ['region', 'segment']));
    const withMetric = await hashes(server, key);
    assert.notEqual(withMetric.reporting, withGroup.reporting);
    await load((writer) => writer.defineMetricsAndDimensions(['new_arr', 'bonus'], ['region', 'segment', 'team']));
    const withDimension = await hashes(server, key);
    assert.notEqual(withDimension.reporting, withMetric.reporting);
    assert.equal(withDimension.tables, first.tables);

    // A new table: the table listing changes, the deals fields do not.
    await load((writer) => writer.defineDataTable('quotas', 'Quotas', [{ key: 'amount', type: 'amount' }]));
    const withTable = await hashes(server, key);
    assert.notEqual(withTable.tables, first.tables);
    assert.equal(withTable.deals, first.deals);
  });

  test('the same structure gives the same hash, in every tenant', async (t) => {
    let acme!: Fixture;
    let globex!: Fixture;
    const server = await startTestServer(t, {}, async (store) => {
      acme = await buildFixture(store, { tenant: 'acme', records: 5 });
      globex = await buildFixture(store, { tenant: 'globex', records: 40, deals: 2 });
    });
    assert.deepEqual(await hashes(server, acme.key), await hashes(server, globex.key));
  });
});
