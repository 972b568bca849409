import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { serveDatabase, startTestServer, type TestServer } from '../support/harness.js';
import { expectedV2Statement, type V1Record } from '../support/v2Mapping.js';

/**
 * The v2 reads (docs/rules.md#v2-reads): data structures, their fields, and their records paged
 * by `start_id`, served from the same data as v1. Every answer is checked against the contract
 * by the harness; v2 records are held against v1's through the mapping table of docs/rules.md,
 * written out again in test/support/v2Mapping.ts.
 */
type Structure = { id: string; name: string; type: string; total_records: number; links: { fields: string; records: string } };
type V2Page = { data: Record<string, unknown>[]; meta: { next_start_id: string | null; has_more: boolean; next_url: string | null } };

const path = (server: TestServer, url: string) => url.slice(server.url.length);

/** A v2 record without its modification time (v2's own field), after checking that it is one. */
function withoutTime(record: Record<string, unknown>): Record<string, unknown> {
  const { 'standard.last_modified_at': time, ...rest } = record;
  assert.match(String(time), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  return rest;
}

/** Follows `meta.next_url` from `start` to the last page: every record, and the number of pages. */
async function walkV2(server: TestServer, key: string, start: string): Promise<{ records: Record<string, unknown>[]; pages: number }> {
  const records: Record<string, unknown>[] = [];
  let pages = 0;
  for (let at: string | null = start; at !== null; ) {
    const response = await server.call('GET', at, { key });
    assert.equal(response.status, 200, response.text);
    const page = response.body as V2Page;
    pages += 1;
    records.push(...page.data);
    assert.equal(page.meta.has_more, page.meta.next_url !== null);
    assert.equal(page.meta.next_start_id, page.meta.has_more ? page.data.at(-1)!['standard.id'] : null);
    at = page.meta.next_url === null ? null : path(server, page.meta.next_url);
  }
  return { records, pages };
}

test('v2 reads', async (t) => {
  let acme!: Fixture;
  let globex!: Fixture;
  const server = await startTestServer(t, {}, async (store) => {
    acme = await buildFixture(store, { tenant: 'acme', records: 30, deals: 9 });
    globex = await buildFixture(store, { tenant: 'globex', records: 3 });
    await store.loadTenant('globex', {}, (writer) => writer.defineDataTable('forecasts', 'Forecasts', [{ key: 'due', type: 'date' }]));
  });
  const structures = async (key: string) => (await server.call('GET', '/v2/data-structures', { key })).body.data as Structure[];

  await t.test('GET /v2/data-structures: the statement reporting, then each data table, with counts and links', async () => {
    const listed = await structures(acme.key);
    assert.deepEqual(
      listed.map(({ name, type, total_records }) => ({ name, type, total_records })),
      [
        { name: 'Statement reporting', type: 'statement_reporting', total_records: 30 },
        { name: 'Deals', type: 'record_reporting', total_records: 9 },
      ],
    );
    const [statements, deals] = listed;
    assert.equal(statements!.links.records, `${server.url}/v2/reporting/${statements!.id}/statements`);
    assert.equal(deals!.links.records, `${server.url}/v2/reporting/${deals!.id}/records`);
    assert.equal(deals!.links.fields, `${server.url}/v2/data-structures/${deals!.id}/fields`);
    for (const { links } of listed) {
      assert.equal((await server.call('GET', path(server, links.fields), { key: acme.key })).status, 200);
      assert.equal((await server.call('GET', path(server, links.records), { key: acme.key })).status, 200);
    }
    assert.notEqual(statements!.id, deals!.id);
  });

  await t.test('ids are derived: the same on another server over the database, the same for the same table in another tenant', async () => {
    const other = await serveDatabase(server.database);
    try {
      const again = (await (await fetch(`${other.url}/v2/data-structures`, { headers: { 'X-API-Key': acme.key } })).json()) as { data: Structure[] };
      assert.deepEqual(again.data.map((s: Structure) => s.id), (await structures(acme.key)).map((s) => s.id));
    } finally {
      await other.close();
    }
    const acmeIds = (await structures(acme.key)).map((s) => s.id);
    const globexIds = (await structures(globex.key)).map((s) => s.id);
    assert.deepEqual(globexIds.slice(0, 2), acmeIds, 'statement reporting and deals');
    assert.equal(globexIds.length, 3);
    for (const id of acmeIds) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  await t.test("the fields are v1's fields under their v2 keys, companions folded; schema_hash follows the list", async () => {
    const [statements, deals] = await structures(acme.key);
    const fields = await server.call('GET', `/v2/data-structures/${statements!.id}/fields`, { key: acme.key });
    const v1 = (await server.call('GET', '/v1/reporting/fields', { key: acme.key })).body.data as { name: string; type: string }[];
    const keys = fields.body.fields.map((f: { api_key: string }) => f.api_key);
    assert.deepEqual(keys, [
      'standard.id',
      'standard.date',
      'standard.plan',
      'standard.user',
      'standard.commission_impact',
      'standard.target',
      'standard.target_achievement',
      'standard.on_target_earning',
      'standard.achievement',
      'custom.new_arr',
      'custom.region',
      'custom.segment',
      'standard.last_modified_at',
    ]);
    assert.equal(fields.body.count, v1.filter((f) => f.type !== 'currency').length + 1);
    const region = fields.body.fields.find((f: { api_key: string }) => f.api_key === 'custom.region');
    assert.deepEqual(region, {
      api_key: 'custom.region',
      name: 'region',
      type: 'array',
      format: 'enum',
      origin: 'custom',
      created_at: null,
      currencies: null,
      enum_values: ['APAC', 'EMEA'],
      properties: null,
    });
    const dealFields = await server.call('GET', `/v2/data-structures/${deals!.id}/fields`, { key: acme.key });
    assert.deepEqual(
      dealFields.body.fields.map((f: { api_key: string; format: string; origin: string }) => [f.api_key, f.format, f.origin]),
      [
        ['standard.id', null, 'standard'],
        ['datatable.name', null, 'datatable'],
        ['datatable.owner_id', 'user_reference', 'datatable'],
        ['datatable.close_date', 'datetime', 'datatable'],
        ['datatable.amount', 'currency', 'datatable'],
        ['standard.last_modified_at', 'datetime', 'standard'],
      ],
    );
    assert.notEqual(dealFields.body.schema_hash, fields.body.schema_hash);
    const globexDeals = (await structures(globex.key))[1]!;
    const same = await server.call('GET', `/v2/data-structures/${globexDeals.id}/fields`, { key: globex.key });
    assert.equal(same.body.schema_hash, dealFields.body.schema_hash, 'the same structure, the same hash');
  });

  await t.test('a walk of statements by next_url is the v1 walk, record for record, through the mapping table', async () => {
    const [statements] = await structures(acme.key);
    const v2 = await walkV2(server, acme.key, `/v2/reporting/${statements!.id}/statements?limit=7`);
    assert.equal(v2.pages, 5);
    const v1 = (await server.call('GET', '/v1/reporting?limit=2000', { key: acme.key })).body.data as V1Record[];
    assert.deepEqual(v2.records.map(withoutTime), v1.map((record) => expectedV2Statement(record, ['new_arr'], ['region', 'segment'])));
    const all = await server.call('GET', `/v2/reporting/${statements!.id}/statements`, { key: acme.key });
    assert.deepEqual(all.body.data, v2.records, 'the default limit holds them all');
    assert.deepEqual(all.body.meta, { next_start_id: null, has_more: false, next_url: null });
  });

  await t.test("a data table's records: amounts with their currency, users as references with their e-mail", async () => {
    const deals = (await structures(acme.key))[1]!;
    const { records } = await walkV2(server, acme.key, `/v2/reporting/${deals.id}/records?limit=4`);
    assert.equal(records.length, 9);
    assert.deepEqual(withoutTime(records[4]!), {
      'standard.id': 'acme-d4',
      'datatable.name': 'Deal 4',
      'datatable.owner_id': { id: 'u1', email: 'user1@acme.example' },
      'datatable.close_date': '2026-03-05T10:00:00.000Z',
      'datatable.amount': { value: 400, currency: 'EUR' },
    });
  });

  await t.test('start_id: the page after that record; an id that is no record of the structure is a 400 with a pointer', async () => {
    const [statements, deals] = await structures(acme.key);
    const after = await server.call('GET', `/v2/reporting/${statements!.id}/statements?start_id=acme-r27`, { key: acme.key });
    assert.deepEqual(after.body.data.map((r: Record<string, unknown>) => r['standard.id']), ['acme-r28', 'acme-r29']);
    const last = await server.call('GET', `/v2/reporting/${statements!.id}/statements?start_id=acme-r29`, { key: acme.key });
    assert.deepEqual(last.body, { data: [], meta: { next_start_id: null, has_more: false, next_url: null } });
    for (const [id, startId] of [
      [statements!.id, 'acme-d1'],
      [statements!.id, 'globex-r1'],
      [deals!.id, 'acme-r1'],
      [statements!.id, 'nothing'],
    ]) {
      const refused = await server.call('GET', `/v2/reporting/${id}/${id === deals!.id ? 'records' : 'statements'}?start_id=${startId}`, { key: acme.key });
      assert.equal(refused.status, 400, startId);
      assert.deepEqual(refused.body.errors, [{ pointer: '/query/start_id', message: 'is not the id of a record of this data structure' }]);
    }
  });

  await t.test("404: an unknown id, another tenant's table, a structure read by the other route", async () => {
    const [statements, deals] = await structures(acme.key);
    const forecasts = (await structures(globex.key))[2]!;
    for (const target of [
      `/v2/data-structures/nothing/fields`,
      `/v2/data-structures/${forecasts.id}/fields`,
      `/v2/reporting/${forecasts.id}/records`,
      `/v2/reporting/${statements!.id}/records`,
      `/v2/reporting/${deals!.id}/statements`,
    ]) {
      const response = await server.call('GET', target, { key: acme.key });
      assert.equal(response.status, 404, target);
    }
  });

  await t.test('the v1 reporting answers say they go at the end of 2026, and link to the v2 route that replaces them', async () => {
    const [statements] = await structures(acme.key);
    const page = await server.call('GET', '/v1/reporting?limit=2', { key: acme.key });
    const unchanged = await server.call('GET', '/v1/reporting?limit=2', { key: acme.key, headers: { 'If-None-Match': page.headers.get('etag')! } });
    const fields = await server.call('GET', '/v1/reporting/fields', { key: acme.key });
    assert.equal(unchanged.status, 304);
    for (const answer of [page, unchanged, fields]) {
      assert.equal(answer.headers.get('deprecation'), '@1798761599', 'RFC 9745: 2026-12-31T23:59:59Z in seconds since 1970');
      assert.equal(answer.headers.get('sunset'), 'Thu, 31 Dec 2026 23:59:59 GMT');
    }
    assert.equal(page.headers.get('link'), `<${statements!.links.records}>; rel="successor-version"`);
    assert.equal(fields.headers.get('link'), `<${statements!.links.fields}>; rel="successor-version"`);
    const tableRecords = await server.call('GET', '/v1/tables/deals/records', { key: acme.key });
    assert.equal(tableRecords.headers.get('deprecation'), null, 'the other v1 routes stay');
  });

  await t.test('limit is 1 to 2000; a key is required', async () => {
    const [statements] = await structures(acme.key);
    for (const limit of ['0', '2001', 'x', '-1']) {
      const response = await server.call('GET', `/v2/reporting/${statements!.id}/statements?limit=${limit}`, { key: acme.key });
      assert.equal(response.status, 400, limit);
      assert.equal(response.body.errors[0].pointer, '/query/limit');
    }
    const notATime = await server.call('GET', `/v2/reporting/${statements!.id}/statements?last_modified_after=yesterday`, { key: acme.key });
    assert.equal(notATime.status, 400);
    assert.equal(notATime.body.errors[0].pointer, '/query/last_modified_after');
    for (const time of ['2016-12-31T23:59:60Z', '0000-01-01T00:00:00Z', '9999-12-31T23:59:59.999999Z']) {
      const answer = await server.call('GET', `/v2/reporting/${statements!.id}/statements?limit=1&last_modified_before=${time}&last_modified_after=${time}`, { key: acme.key });
      assert.deepEqual(answer.body, { data: [], meta: { next_start_id: null, has_more: false, next_url: null } }, time);
    }
    assert.equal((await server.call('GET', '/v2/data-structures')).status, 401);
    assert.equal((await server.call('GET', `/v2/reporting/${statements!.id}/statements`)).status, 401);
  });
});
