import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { startChildServer } from '../support/childServer.js';
import { exchange, shared, startTestServer, type Scope, type TestServer, type TestServerOptions } from '../support/harness.js';
import { groupSlot, readAll, stateOfRows } from '../support/attributions.js';

/**
 * All or nothing (docs/rules.md#bulk-attributions): a request refused for any reason writes nothing, wherever the broken item
 * sits; concurrent requests are serialised, so the invariant holds afterwards.
 */
const USERS = 200;

async function serverWithFixture(t: Scope, options: TestServerOptions = {}) {
  let fixture!: Fixture;
  const server = await startTestServer(t, options, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme', users: USERS, records: 2 * USERS });
  });
  const put = (data: unknown[]) => server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data } });
  return { server, fixture, put };
}

const user = (i: number) => `user${i}@acme.example`;

/** 200 valid items, one per user: group items that override the fixture's and manager items up a tree. */
function validItems(): Record<string, unknown>[] {
  return Array.from({ length: USERS }, (_, i) =>
    i % 4 === 3
      ? { user: user(i), manager: user(Math.floor(i / 4)), start_date: '2026-02' }
      : { user: user(i), group_dimension: i % 2 ? 'segment' : 'region', group: `G${i % 7}`, start_date: '2026-04', end_date: i % 3 ? null : '2026-10' },
  );
}

/** Everything a client can read back, as the exact response texts. */
async function everything(server: TestServer, key: string): Promise<string[]> {
  const texts: string[] = [];
  for (const path of ['/v1/users/groups', '/v1/users/managers', '/v1/reporting']) {
    texts.push((await server.call('GET', path, { key })).text);
  }
  return texts;
}

describe('all or nothing', () => {
  // A refused PUT writes nothing, so the refusals share one fixture: each compares what it reads
  // before and after its own PUT.
  const refusals = shared((scope) => serverWithFixture(scope));

  test('the valid items alone are written: the control for the cases below', async (t) => {
    const { server, fixture, put } = await serverWithFixture(t);
    const before = await everything(server, fixture.key);
    const response = await put(validItems());
    assert.equal(response.status, 200, response.text);
    assert.notDeepEqual(await everything(server, fixture.key), before);
  });

  const breakages: [string, { status: number; pointer: (i: number) => string; breakItem: (item: Record<string, unknown>) => void }][] = [
    ['a month that does not parse', { status: 400, pointer: (i) => `/data/${i}/start_date`, breakItem: (item) => void (item.start_date = '2026-13') }],
    ['an extra field', { status: 400, pointer: (i) => `/data/${i}/extra`, breakItem: (item) => void (item.extra = true) }],
    ['start after end', { status: 400, pointer: (i) => `/data/${i}/end_date`, breakItem: (item) => Object.assign(item, { start_date: '2026-09', end_date: '2026-08' }) }],
    ['an unknown user', { status: 422, pointer: (i) => `/data/${i}/user`, breakItem: (item) => void (item.user = 'nobody@acme.example') }],
  ];
  for (const [name, { status, pointer, breakItem }] of breakages) {
    for (const position of [0, 117, USERS - 1]) {
      test(`${name} in item ${position} of 200: ${status}, and nothing is written`, async () => {
        const { server, fixture, put } = await refusals();
        const before = await everything(server, fixture.key);
        const items = validItems();
        breakItem(items[position]!);
        const response = await put(items);
        assert.equal(response.status, status, response.text);
        assert.ok(response.body.errors.some((e: { pointer: string }) => e.pointer === pointer(position)), response.text);
        assert.deepEqual(await everything(server, fixture.key), before);
      });
    }
  }

  test('a cycle closed by the last item, after 199 items that would write: 422, nothing written', async () => {
    const { server, fixture, put } = await refusals();
    const before = await everything(server, fixture.key);
    const items = validItems().slice(0, USERS - 1);
    // user3 reports to user0 from 2026-02 (item 3); user0 reporting to user3 closes a cycle.
    items.push({ user: user(0), manager: user(3), start_date: '2026-06', end_date: '2026-06' });
    items[0] = { user: user(199), group_dimension: 'region', group: 'X', start_date: '2026-01' };
    const response = await put(items);
    assert.equal(response.status, 422, response.text);
    assert.deepEqual(response.body.errors.map((e: { pointer: string }) => e.pointer), [`/data/${USERS - 1}/manager`]);
    assert.deepEqual(await everything(server, fixture.key), before);
  });
});

describe('concurrent requests', () => {
  test('many parallel upserts of one user and dimension leave one group per month', async (t) => {
    // Forty writes queue for the lock: a loaded machine may keep the last waiting past the
    // default wait (a 503, which is not what this test is about).
    const { server, fixture, put } = await serverWithFixture(t, { busyTimeoutMs: 60_000 });
    const month = (year: number, m: number) => `${year}-${String(m).padStart(2, '0')}`;
    const requests = Array.from({ length: 40 }, (_, i) => {
      const start = (i % 12) + 1;
      const single = i % 2 === 0;
      const end = single && i % 5 === 0 ? null : month(2026, Math.min(12, start + (i % 4)));
      const first = { user: user(0), group_dimension: 'region', group: `P${i}`, start_date: month(2026, start), end_date: end };
      const second = { user: user(0), group_dimension: 'region', group: `Q${i}`, start_date: month(2027, start), end_date: '2027-12' };
      return put(single ? [first] : [first, second]);
    });
    const responses = await Promise.all(requests);
    assert.deepEqual(responses.map((r) => r.status), responses.map(() => 200));
    const stored = await readAll(server, fixture.key, `/v1/users/groups?user=${user(0)}&group_dimension=region`);
    stateOfRows(stored, groupSlot, (row) => row.group); // fails on two groups in one month
    // Each row shares its months with itself once; every other pair of one slot sharing a month counts twice.
    const doubles = await server.sql.value(
      `SELECT (SELECT count(*) FROM group_attributions a JOIN group_attributions b
         ON a.user_pk = b.user_pk AND a.dimension_pk = b.dimension_pk
        AND a.start_month <= coalesce(b.end_month, 999999) AND b.start_month <= coalesce(a.end_month, 999999))
        - (SELECT count(*) FROM group_attributions)`,
    );
    assert.equal(Number(doubles), 0, 'no two stored rows of one slot share a month');
    const records = await readAll(server, fixture.key, '/v1/reporting');
    const ofUser = records.filter((record) => record.user.email === user(0));
    assert.ok(ofUser.length > 0);
    for (const record of ofUser) assert.ok(record.region.length <= 1, `${record.date}: ${record.region}`);
  });

  test('across processes, checks see what the other process wrote: of two halves of a cycle, one is refused', async (t) => {
    const { server, fixture } = await serverWithFixture(t);
    const urls = [server.url, await startChildServer(t, server.database), await startChildServer(t, server.database)];
    const pairs = 30;
    const calls = Array.from({ length: pairs }, (_, k) => {
      const [a, b] = [user(2 * k + 1), user(2 * k + 2)];
      const put = (url: string, data: unknown[]) => exchange(url, 'PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data } });
      return [
        put(urls[k % 3]!, [{ user: a, manager: b }, { user: user(0), group_dimension: 'region', group: `A${k}`, start_date: '2026-01', end_date: null }]),
        put(urls[(k + 1) % 3]!, [{ user: b, manager: a, start_date: '2026-06' }, { user: user(0), group_dimension: 'region', group: `B${k}`, start_date: '2026-06', end_date: '2026-08' }]),
      ];
    });
    const statuses = await Promise.all(calls.map((pair) => Promise.all(pair).then((responses) => responses.map((r) => r.status).sort())));
    assert.deepEqual(statuses, statuses.map(() => [200, 422]), 'exactly one of each pair is written');
    const managers = await readAll(server, fixture.key, '/v1/users/managers');
    assert.equal(managers.length, pairs);
    const stored = await readAll(server, fixture.key, `/v1/users/groups?user=${user(0)}`);
    stateOfRows(stored, groupSlot, (row) => row.group);
  });
});
