import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { buildFixture, type Fixture, type FixtureSpec } from '../support/fixture.js';
import { shared, startTestServer, type TestServer } from '../support/harness.js';
import { groupSlot, managerSlot, readAll, SlotModel, stateOfRows } from '../support/attributions.js';

/**
 * PUT /v1/users/groups/bulk, successful requests (docs/rules.md#bulk-attributions): the override rule in each shape, manager
 * items, the normalised echo, e-mails without regard to case, and the reporting records (docs/rules.md#metrics-and-dimensions).
 * The fixture's user0 is in region EMEA 2026-03..2026-05 and APAC from 2026-09 (open).
 */
async function serverWithFixture(t: TestContext, spec: Partial<FixtureSpec> = {}) {
  let fixture!: Fixture;
  const server = await startTestServer(t, {}, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme', ...spec });
  });
  const put = (data: unknown[]) => server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data } });
  return { server, fixture, put };
}

/**
 * The fixture in a tenant of its own on a server that the tests of a `describe` share (one
 * database and server, not one each): every tenant has the same users and e-mails
 * (`@acme.example`), and a test reads back only through its own tenant's key, so what it finds
 * is exactly what it wrote there; another tenant's writes seen would fail its comparison.
 */
async function tenantOnSharedServer(sharedServer: () => Promise<TestServer>, spec: Partial<FixtureSpec> = {}) {
  const server = await sharedServer();
  tenants += 1;
  const fixture = await buildFixture(server.store, { tenant: `acme${tenants}`, emailDomain: 'acme.example', ...spec });
  const put = (data: unknown[]) => server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data } });
  return { server, fixture, put };
}
let tenants = 0;

const U0 = 'user0@acme.example';
const region = (group: string, start_date: string, end_date: string | null) =>
  ({ user: U0, group_dimension: 'region', group, start_date, end_date });

describe('PUT /v1/users/groups/bulk: the override rule', () => {
  const sharedServer = shared((scope) => startTestServer(scope));
  const EMEA = region('EMEA', '2026-03', '2026-05');
  const APAC = region('APAC', '2026-09', null);
  const cases: [string, { put: ReturnType<typeof region>; want: ReturnType<typeof region>[] }][] = [
    ['trim at the end edge', { put: region('NA', '2026-05', '2026-07'), want: [region('EMEA', '2026-03', '2026-04'), region('NA', '2026-05', '2026-07'), APAC] }],
    ['trim at the start edge', { put: region('NA', '2026-01', '2026-03'), want: [region('NA', '2026-01', '2026-03'), region('EMEA', '2026-04', '2026-05'), APAC] }],
    ['split in two', { put: region('NA', '2026-04', '2026-04'), want: [region('EMEA', '2026-03', '2026-03'), region('NA', '2026-04', '2026-04'), region('EMEA', '2026-05', '2026-05'), APAC] }],
    ['delete (covered)', { put: region('NA', '2026-02', '2026-06'), want: [region('NA', '2026-02', '2026-06'), APAC] }],
    ['exact replace', { put: region('NA', '2026-03', '2026-05'), want: [region('NA', '2026-03', '2026-05'), APAC] }],
    ['a longer period from the same start', { put: region('NA', '2026-03', '2026-07'), want: [region('NA', '2026-03', '2026-07'), APAC] }],
    ['a shorter period from the same start', { put: region('NA', '2026-03', '2026-04'), want: [region('NA', '2026-03', '2026-04'), region('EMEA', '2026-05', '2026-05'), APAC] }],
    ['an open-ended period from the same start replaces both', { put: region('NA', '2026-03', null), want: [region('NA', '2026-03', null)] }],
    ['same group again changes nothing', { put: EMEA, want: [EMEA, APAC] }],
    ['adjacent periods are untouched', { put: region('NA', '2026-06', '2026-08'), want: [EMEA, region('NA', '2026-06', '2026-08'), APAC] }],
    ['open-ended new period trims an open-ended one', { put: region('NA', '2026-11', null), want: [EMEA, region('APAC', '2026-09', '2026-10'), region('NA', '2026-11', null)] }],
    ['open-ended new period deletes what follows', { put: region('NA', '2026-04', null), want: [region('EMEA', '2026-03', '2026-03'), region('NA', '2026-04', null)] }],
    ['a closed period splits an open-ended one', { put: region('NA', '2027-01', '2027-02'), want: [EMEA, region('APAC', '2026-09', '2026-12'), region('NA', '2027-01', '2027-02'), region('APAC', '2027-03', null)] }],
    ['one period over both', { put: region('NA', '2026-05', '2026-09'), want: [region('EMEA', '2026-03', '2026-04'), region('NA', '2026-05', '2026-09'), region('APAC', '2026-10', null)] }],
  ];
  for (const [name, { put: item, want }] of cases) {
    test(name, async () => {
      const { server, fixture, put } = await tenantOnSharedServer(sharedServer);
      const response = await put([item]);
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body, { count: 1, data: [item] });
      const stored = await readAll(server, fixture.key, '/v1/users/groups?group_dimension=region');
      const byStart = (a: { start_date: string }, b: { start_date: string }) => a.start_date.localeCompare(b.start_date);
      assert.deepEqual(stored, [...want].sort(byStart));
    });
  }

  test('other dimensions and other users keep their attributions', async () => {
    const { server, fixture, put } = await tenantOnSharedServer(sharedServer);
    const segment = { user: U0, group_dimension: 'segment', group: 'SMB', start_date: '2026-01', end_date: null };
    const other = { user: 'user1@acme.example', group_dimension: 'region', group: 'NA', start_date: '2026-01', end_date: null };
    assert.equal((await put([segment, other])).status, 200);
    const stored = await readAll(server, fixture.key, '/v1/users/groups');
    assert.deepEqual(stored, [region('EMEA', '2026-03', '2026-05'), region('APAC', '2026-09', null), segment, other]);
  });
});

describe('PUT /v1/users/groups/bulk: items and echo', () => {
  const sharedServer = shared((scope) => startTestServer(scope));
  test('e-mails match without regard to case; the echo carries them as stored, in request order', async () => {
    const { put } = await tenantOnSharedServer(sharedServer);
    const sent = [
      { user: 'USER1@Acme.Example', manager: 'User2@ACME.example', start_date: '2026-02' },
      { user: 'User0@acme.EXAMPLE', group_dimension: 'segment', group: 'Enterprise', start_date: '2026-01' },
    ];
    const response = await put(sent);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, {
      count: 2,
      data: [
        { user: 'user1@acme.example', manager: 'user2@acme.example', start_date: '2026-02', end_date: null },
        { user: U0, group_dimension: 'segment', group: 'Enterprise', start_date: '2026-01', end_date: null },
      ],
    });
  });

  // A database of its own: it looks at the groups table across tenants.
  test('a group name not known yet creates the group; the same name in two dimensions is two groups', async (t) => {
    const { server, fixture, put } = await serverWithFixture(t);
    const items = [
      { user: U0, group_dimension: 'segment', group: 'Brand New', start_date: '2026-01', end_date: '2026-02' },
      { user: 'user1@acme.example', group_dimension: 'region', group: 'Brand New', start_date: '2026-01', end_date: null },
    ];
    assert.equal((await put(items)).status, 200);
    const groups = (await server.sql.rows(`SELECT d.key FROM groups g JOIN dimensions d ON d.pk = g.dimension_pk WHERE g.name = 'Brand New' ORDER BY d.key`)).flat();
    assert.deepEqual(groups, ['region', 'segment']);
    assert.deepEqual(await readAll(server, fixture.key, '/v1/users/groups?group_dimension=segment'), [items[0]]);
  });

  test('manager items: optional dates, and the override rule per user', async () => {
    const { server, fixture, put } = await tenantOnSharedServer(sharedServer, { users: 5 });
    const m = (manager: number, start_date: string | null, end_date: string | null) =>
      ({ user: U0, manager: `user${manager}@acme.example`, start_date, end_date });
    assert.deepEqual((await put([{ user: U0, manager: 'user1@acme.example' }])).body.data, [m(1, null, null)]);
    assert.equal((await put([{ user: U0, manager: 'user2@acme.example', start_date: '2026-03', end_date: '2026-05' }])).status, 200);
    assert.deepEqual(await readAll(server, fixture.key, '/v1/users/managers'), [m(1, null, '2026-02'), m(2, '2026-03', '2026-05'), m(1, '2026-06', null)]);
    assert.equal((await put([{ user: U0, manager: 'user3@acme.example', end_date: '2026-03' }])).status, 200);
    assert.deepEqual(await readAll(server, fixture.key, '/v1/users/managers'), [m(3, null, '2026-03'), m(2, '2026-04', '2026-05'), m(1, '2026-06', null)]);
    assert.equal((await put([{ user: U0, manager: 'user4@acme.example', start_date: null, end_date: null }])).status, 200);
    assert.deepEqual(await readAll(server, fixture.key, '/v1/users/managers'), [m(4, null, null)]);
  });

  test('a long random sequence of requests leaves what a month-by-month model says', async () => {
    const { server, fixture, put } = await tenantOnSharedServer(sharedServer, { users: 4 });
    const groups = new SlotModel();
    const managers = new SlotModel();
    groups.put(`${U0}/region`, 'EMEA', '2026-03', '2026-05');
    groups.put(`${U0}/region`, 'APAC', '2026-09', null);
    let seed = 7;
    const random = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
    const month = () => `${2025 + random(3)}-${String(1 + random(12)).padStart(2, '0')}`;
    for (let round = 0; round < 40; round += 1) {
      const user = `user${random(4)}@acme.example`;
      const [a, b] = [month(), month()].sort();
      const end = random(4) === 0 ? null : b!;
      if (random(3) === 0) {
        const item = { user, manager: `user${(Number(user[4]) + 1 + random(3)) % 4}@acme.example`, start_date: random(4) === 0 ? null : a!, end_date: end };
        const response = await put([item]);
        if (response.status === 422) continue; // a cycle: checked elsewhere; nothing written
        assert.equal(response.status, 200, response.text);
        managers.put(managerSlot(item), item.manager, item.start_date, item.end_date);
      } else {
        const item = { user, group_dimension: ['region', 'segment'][random(2)]!, group: ['EMEA', 'NA', 'APAC'][random(3)]!, start_date: a!, end_date: end };
        const response = await put([item]);
        assert.equal(response.status, 200, response.text);
        groups.put(groupSlot(item), item.group, item.start_date, item.end_date);
      }
    }
    const storedGroups = await readAll(server, fixture.key, '/v1/users/groups?limit=3');
    assert.deepEqual(stateOfRows(storedGroups, groupSlot, (row) => row.group), groups.snapshot());
    assert.ok(managers.snapshot().size > 0, 'some manager items were written');
    const storedManagers = await readAll(server, fixture.key, '/v1/users/managers?limit=3');
    assert.deepEqual(stateOfRows(storedManagers, managerSlot, (row) => row.manager), managers.snapshot());
  });
});

describe('reporting records after an upsert', () => {
  test('the next read of the reporting records shows the new groups in exactly those months', async (t) => {
    const { server, fixture, put } = await serverWithFixture(t, { users: 5, records: 60 });
    const model = new SlotModel();
    model.put('region', 'EMEA', '2026-03', '2026-05');
    model.put('region', 'APAC', '2026-09', null);
    const items = [region('NA', '2026-04', '2026-07'), { user: U0, group_dimension: 'segment', group: 'SMB', start_date: '2026-06', end_date: null }];
    for (const item of items) model.put(item.group_dimension, item.group, item.start_date, item.end_date);
    assert.equal((await put(items)).status, 200);
    const page = await server.call('GET', '/v1/reporting', { key: fixture.key });
    let checked = 0;
    for (const record of page.body.data) {
      const month = Number(record.date.slice(0, 4)) * 12 + Number(record.date.slice(5, 7)) - 1;
      const holder = (dimension: string) => (record.user.email === U0 ? [model.at(dimension, month)].filter(Boolean) : []);
      assert.deepEqual(record.region, holder('region'), `${record.id} ${record.date} region`);
      assert.deepEqual(record.segment, holder('segment'), `${record.id} ${record.date} segment`);
      if (record.user.email === U0) checked += 1;
    }
    assert.equal(checked, 12, 'user0 has a record in every month of 2026');
  });
});
