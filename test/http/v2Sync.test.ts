import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { TenantWriter } from '../../src/store/tenantWriting.js';
import { fixtureLine, fixtureUser } from '../support/fixture.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { expectedV2Statement, type V1Record } from '../support/v2Mapping.js';

/**
 * The v2 reads against v1 through random writes (docs/rules.md#v2-reads): a full v2 walk of the
 * statements is the v1 walk through the mapping table; a `last_modified_after` walk returns
 * exactly the records v1's `changed_since` sync returns; a `start_id` of a record deleted
 * since it was handed out goes on after where it stood. Over HTTP, on the engine of the run.
 */
const USERS = 4;
const RECORDS = 12;
const DEALS = 6;
const FIRST_MONTH = 2026 * 12;

const month = fc.integer({ min: FIRST_MONTH - 2, max: FIRST_MONTH + 13 });
const period = fc.tuple(month, fc.option(month)).map(([start, end]) => (end !== null && end < start ? { start: end, end: start } : { start, end }));
const attribution = fc.record({ user: fc.nat({ max: USERS - 1 }), dimension: fc.constantFrom('region', 'segment'), group: fc.constantFrom('North', 'South'), period });
const write = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('put' as const), items: fc.array(attribution, { minLength: 1, maxLength: 3 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('importRecords' as const),
      records: fc.array(fc.record({ i: fc.nat({ max: RECORDS + 4 }), user: fc.nat({ max: USERS - 1 }), month: fc.nat({ max: 11 }), payment: fc.nat({ max: 3 }) }), {
        minLength: 1,
        maxLength: 4,
      }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('renameUser' as const), user: fc.nat({ max: USERS - 1 }), name: fc.constantFrom('Ann', 'Bo') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('addMetric' as const), key: fc.constantFrom('churn', 'upsell') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('addDimension' as const), key: fc.constantFrom('tier', 'band') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('importDeals' as const), i: fc.nat({ max: DEALS + 2 }), amount: fc.nat({ max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replace' as const), records: fc.integer({ min: 0, max: RECORDS }) }) },
);
type Write = typeof write extends fc.Arbitrary<infer W> ? W : never;

async function baseData(writer: TenantWriter, tenant: string, records: number): Promise<void> {
  await writer.defineMetricsAndDimensions(['new_arr'], ['region', 'segment']);
  await writer.upsertUsers(Array.from({ length: USERS }, (_, i) => fixtureUser(tenant, i)));
  await writer.upsertReportingRecords(Array.from({ length: records }, (_, i) => fixtureLine(tenant, i, USERS)));
  await writer.defineDataTable('deals', 'Deals', [{ key: 'amount', type: 'number' }]);
  await writer.upsertTableRecords('deals', Array.from({ length: DEALS }, (_, i) => ({ id: `d${i}`, amount: i })));
}

async function apply(server: TestServer, tenant: string, key: string, step: Write): Promise<void> {
  if (step.kind === 'put') {
    const month = (index: number) => `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
    const data = step.items.map((item) => ({
      user: `user${item.user}@${tenant}.example`,
      group_dimension: item.dimension,
      group: item.group,
      start_date: month(item.period.start),
      end_date: item.period.end === null ? null : month(item.period.end),
    }));
    const put = await server.call('PUT', '/v1/users/groups/bulk', { key, json: { data } });
    assert.ok(put.status === 200 || put.status === 422, put.text); // a payload overlapping itself is refused whole
    return;
  }
  await server.store.loadTenant(tenant, { replace: step.kind === 'replace' }, async (writer) => {
    if (step.kind === 'replace') await baseData(writer, tenant, step.records);
    else if (step.kind === 'importRecords') {
      const lines = step.records.map((r) => ({ ...fixtureLine(tenant, r.i, USERS), user_id: `u${r.user}`, date: `2026-${String(r.month + 1).padStart(2, '0')}-15`, payment: r.payment }));
      await writer.upsertReportingRecords([...new Map(lines.map((line) => [line.id, line])).values()]);
    } else if (step.kind === 'renameUser') await writer.upsertUsers([{ ...fixtureUser(tenant, step.user), name: step.name }]);
    else if (step.kind === 'addMetric') await writer.defineMetricsAndDimensions([step.key], []);
    else if (step.kind === 'addDimension') await writer.defineMetricsAndDimensions([], [step.key]);
    else await writer.upsertTableRecords('deals', [{ id: `d${step.i}`, amount: step.amount }]);
    await writer.finish();
  });
}

type V2Record = Record<string, unknown>;

/** Every record of a v2 walk from `start` by `meta.next_url`. */
async function walkV2(server: TestServer, key: string, start: string): Promise<V2Record[]> {
  const records: V2Record[] = [];
  for (let at: string | null = start; at !== null; ) {
    const response = await server.call('GET', at, { key });
    assert.equal(response.status, 200, response.text);
    records.push(...(response.body.data as V2Record[]));
    at = response.body.meta.next_url === null ? null : (response.body.meta.next_url as string).slice(server.url.length);
  }
  return records;
}

/** Every record of a v1 walk from `start` by `next` (with `changed_since`: to the `sync_token`), and that token. */
async function walkV1(server: TestServer, key: string, start: string): Promise<{ records: V1Record[]; token?: string; status: number }> {
  const records: V1Record[] = [];
  for (let at: string | undefined = start; ; ) {
    const response = await server.call('GET', at, { key });
    if (response.status !== 200) return { records, status: response.status };
    records.push(...(response.body.data as V1Record[]));
    if (response.body.next === undefined) return { records, token: response.body.sync_token, status: 200 };
    at = (response.body.next as string).slice(server.url.length);
  }
}

const statementsId = async (server: TestServer, key: string) => ((await server.call('GET', '/v2/data-structures', { key })).body.data[0] as { id: string }).id;
const metricAndDimensionKeys = async (server: TestServer, key: string) => {
  const fields = (await server.call('GET', '/v1/reporting/fields', { key })).body.data as { name: string; type: string }[];
  return { metrics: fields.slice(13).filter((f) => f.type === 'amount').map((f) => f.name), dimensions: fields.filter((f) => f.type === 'groups').map((f) => f.name) };
};
const latestTime = (records: V2Record[]) => records.map((r) => r['standard.last_modified_at'] as string).reduce((a, b) => (a > b ? a : b), '1970-01-01T00:00:00.000Z');
const withoutTime = (record: V2Record) => Object.fromEntries(Object.entries(record).filter(([name]) => name !== 'standard.last_modified_at'));

describe('v2 against v1 (property)', () => {
  test('after random writes, a v2 walk of statements is the v1 walk through the mapping; a last_modified_after walk is what a changed_since sync sends', async (t) => {
    const server = await startTestServer(t);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 7 }), async (writes, limit) => {
        run += 1;
        const tenant = `t${run}`;
        await server.store.loadTenant(tenant, {}, async (writer) => {
          await baseData(writer, tenant, RECORDS);
          await writer.finish();
        });
        const { key } = await server.store.createKey(tenant);
        const id = await statementsId(server, key);
        const before = await walkV2(server, key, `/v2/reporting/${id}/statements?limit=${limit}`);
        const since = latestTime(before);
        const { token } = await walkV1(server, key, '/v1/reporting?changed_since=0');

        for (const each of writes) await apply(server, tenant, key, each);

        const v1 = (await walkV1(server, key, '/v1/reporting?limit=2000')).records;
        const v2 = await walkV2(server, key, `/v2/reporting/${id}/statements?limit=${limit}`);
        const { metrics, dimensions } = await metricAndDimensionKeys(server, key);
        assert.deepEqual(v2.map(withoutTime), v1.map((record) => expectedV2Statement(record, metrics, dimensions)));

        let changed = await walkV1(server, key, `/v1/reporting?changed_since=${token}`);
        if (changed.status === 410) changed = await walkV1(server, key, '/v1/reporting?changed_since=0');
        const recent = await walkV2(server, key, `/v2/reporting/${id}/statements?limit=${limit}&last_modified_after=${since}`);
        assert.deepEqual(recent.map((r) => r['standard.id']).sort(), changed.records.map((r) => r.id).sort(), 'the same records changed');
        for (const record of recent) assert.ok((record['standard.last_modified_at'] as string) > since);
        const upTo = await walkV2(server, key, `/v2/reporting/${id}/statements?limit=${limit}&last_modified_before=${latestTime(v2)}`);
        const last = latestTime(v2);
        assert.deepEqual(upTo.map((r) => r['standard.id']), v2.filter((r) => (r['standard.last_modified_at'] as string) < last).map((r) => r['standard.id']));
      }),
      { numRuns: 12 },
    );
  });

  test("a start_id of a record deleted since it was handed out goes on after where it stood; one that never was is a 400", async (t) => {
    const server = await startTestServer(t, {}, (store) =>
      store.loadTenant('acme', {}, async (writer) => {
        await baseData(writer, 'acme', RECORDS);
        await writer.finish();
      }),
    );
    const { key } = await server.store.createKey('acme');
    const id = await statementsId(server, key);
    const first = await server.call('GET', `/v2/reporting/${id}/statements?limit=5`, { key });
    assert.equal(first.body.meta.next_start_id, 'acme-r4');
    // Records 0..2 and 20..29 take positions 0..12; acme-r4 (position 4) is gone.
    await server.store.loadTenant('acme', { replace: true }, async (writer) => {
      await writer.defineMetricsAndDimensions(['new_arr'], ['region', 'segment']);
      await writer.upsertUsers(Array.from({ length: USERS }, (_, i) => fixtureUser('acme', i)));
      await writer.upsertReportingRecords([0, 1, 2, ...Array.from({ length: 10 }, (_, i) => 20 + i)].map((i) => fixtureLine('acme', i, USERS)));
      await writer.finish();
    });
    const next = await server.call('GET', (first.body.meta.next_url as string).slice(server.url.length), { key });
    assert.equal(next.status, 200, next.text);
    assert.deepEqual(next.body.data.map((r: V2Record) => r['standard.id']), ['acme-r22', 'acme-r23', 'acme-r24', 'acme-r25', 'acme-r26']);
    const deals = (await server.call('GET', '/v2/data-structures', { key })).body.data.length;
    assert.equal(deals, 1, 'the replace dropped the deals table');
    const never = await server.call('GET', `/v2/reporting/${id}/statements?start_id=acme-r99`, { key });
    assert.equal(never.status, 400);
    assert.deepEqual(never.body.errors, [{ pointer: '/query/start_id', message: 'is not the id of a record of this data structure' }]);
  });
});
