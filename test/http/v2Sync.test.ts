import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { buildFixture, fixtureLine, fixtureUser, type Fixture } from '../support/fixture.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { statementsOf, v2OfV1Statement, walkV2, withoutTime } from '../support/v2Mapping.js';

const STATEMENTS_PATH = '/v2/reporting/2fa94265-8b29-8997-887d-7958c0ab8234/statements';
const USERS = 4;
const RECORDS = 30;

/** A write of the tenant's data, as clients and imports make them. */
type Write =
  | { kind: 'group'; user: number; dimension: 'region' | 'segment'; group: string; start: number; end: number | null }
  | { kind: 'record'; index: number; payment: number }
  | { kind: 'email'; user: number; suffix: number };

const write: fc.Arbitrary<Write> = fc.oneof(
  fc.record({
    kind: fc.constant('group' as const),
    user: fc.nat(USERS - 1),
    dimension: fc.constantFrom('region' as const, 'segment' as const),
    group: fc.constantFrom('A', 'B', 'C'),
    start: fc.integer({ min: 1, max: 12 }),
    end: fc.option(fc.integer({ min: 0, max: 6 }), { nil: null }),
  }),
  fc.record({ kind: fc.constant('record' as const), index: fc.nat(RECORDS + 4), payment: fc.integer({ min: 0, max: 1000 }) }),
  fc.record({ kind: fc.constant('email' as const), user: fc.nat(USERS - 1), suffix: fc.nat(3) }),
);

const month = (m: number) => `2026-${String(m).padStart(2, '0')}`;

/** The users' e-mail addresses as the writes left them. */
const emails = Array.from({ length: USERS }, (_, i) => `user${i}@acme.example`);

async function apply(server: TestServer, fixture: Fixture, change: Write): Promise<void> {
  if (change.kind === 'group') {
    const item = {
      user: emails[change.user],
      group_dimension: change.dimension,
      group: change.group,
      start_date: month(change.start),
      ...(change.end !== null && { end_date: month(Math.min(12, change.start + change.end)) }),
    };
    const put = await server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data: [item] } });
    assert.equal(put.status, 200, put.text);
    return;
  }
  await server.store.loadTenant('acme', {}, async (writer) => {
    if (change.kind === 'record') await writer.upsertReportingRecords([{ ...fixtureLine('acme', change.index, USERS), payment: change.payment }]);
    else {
      emails[change.user] = `user${change.user}+${change.suffix}@acme.example`;
      await writer.upsertUsers([{ ...fixtureUser('acme', change.user), email: emails[change.user]! }]);
    }
    await writer.finish();
  });
}

test('after random writes, a v2 walk is v1 through the mapping, and a last_modified_after walk is a changed_since sync', async (t) => {
  let fixture!: Fixture;
  const server = await startTestServer(t, {}, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme', records: RECORDS, users: USERS, deals: 0 });
  });
  let token = (await server.call('GET', '/v1/reporting?changed_since=0&limit=2000', { key: fixture.key })).body.sync_token as string;
  await fc.assert(
    fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 12 }), async (writes, limit) => {
      const before = (await walkV2(server, fixture.key, STATEMENTS_PATH)).records.map(withoutTime);
      const newest = before.map((record) => record.time).sort().at(-1)!;
      for (const change of writes) await apply(server, fixture, change);

      const v1 = (await server.call('GET', '/v1/reporting?limit=2000', { key: fixture.key })).body.data as Record<string, unknown>[];
      const v2 = (await walkV2(server, fixture.key, `${STATEMENTS_PATH}?limit=${limit}`)).records.map(withoutTime);
      assert.deepEqual(
        v2.map((record) => record.fields),
        v1.map((record) => v2OfV1Statement(record, ['new_arr'], ['region', 'segment'], statementsOf(v1))),
      );

      const sync = await server.call('GET', `/v1/reporting?changed_since=${token}&limit=2000`, { key: fixture.key });
      token = sync.body.sync_token;
      const changed = (await walkV2(server, fixture.key, `${STATEMENTS_PATH}?limit=${limit}&last_modified_after=${newest}`)).records.map(withoutTime);
      const synced = (sync.body.data as Record<string, unknown>[]).map((record) => v2OfV1Statement(record, ['new_arr'], ['region', 'segment'], statementsOf(v1)));
      // Besides what v1's sync returns: the other lines of a statement whose total changed (docs/rules.md#statements).
      const totalBefore = new Map(before.map((record) => [record.fields['standard.id'], JSON.stringify(record.fields['standard.total_commission'])]));
      const totalMoved = v2
        .filter((record) => totalBefore.get(record.fields['standard.id']) !== JSON.stringify(record.fields['standard.total_commission']))
        .filter((record) => !synced.some((other) => other['standard.id'] === record.fields['standard.id']))
        .map((record) => record.fields);
      const byId = (records: Record<string, unknown>[]) => [...records].sort((x, y) => String(x['standard.id']).localeCompare(String(y['standard.id'])));
      assert.deepEqual(byId(changed.map((record) => record.fields)), byId([...synced, ...totalMoved]));
      for (const record of changed) assert.ok(record.time > newest);
      const times = v2.map((record) => record.time);
      const unchanged = v2.filter((record) => !changed.some((other) => other.fields['standard.id'] === record.fields['standard.id']));
      for (const record of unchanged) assert.ok(record.time <= newest, 'a record no write changed keeps its time');
      assert.ok(times.every((time) => /Z$/.test(time)));
    }),
    { numRuns: Number(process.env.V2_SYNC_RUNS ?? 12) },
  );
});
