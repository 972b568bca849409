import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { shared, startTestServer, type TestServer } from '../support/harness.js';

/**
 * PUT /v1/users/groups/bulk refusals (docs/rules.md#bulk-attributions, docs/rules.md#errors): 400 for what the schema or the dates refuse, 422
 * for the rules that need stored data, 413 / 415 / bad JSON before that. Every refusal checks
 * the pointers; the all-or-nothing property is in upsertGroupsBulkAtomicity.test.ts.
 */
async function serverWithFixture(t: TestContext, options = {}) {
  let fixture!: Fixture;
  const server = await startTestServer(t, options, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme', users: 5 });
  });
  const put = (data: unknown) => server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data } });
  return { server, fixture, put };
}

/** A server that the tests of a `describe` share (the ones that need no options of their own). */
const describeServer = () => shared((scope) => startTestServer(scope));

/**
 * The fixture in a tenant of its own (`acme1`, `acme2`, ...; the same users and e-mails) on the
 * describe's server: a test writes and reads only through its tenant's key, so it meets the
 * fixture as built, whatever the others wrote in theirs.
 */
async function tenantWithFixture(server: () => Promise<TestServer>) {
  const running = await server();
  tenants += 1;
  const fixture = await buildFixture(running.store, { tenant: `acme${tenants}`, users: 5, emailDomain: 'acme.example' });
  const put = (data: unknown) => running.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data } });
  return { server: running, fixture, put };
}
let tenants = 0;

const user = (i: number) => `user${i}@acme.example`;
const groupItem = (i: number, extra: Record<string, unknown> = {}) =>
  ({ user: user(i), group_dimension: 'region', group: 'NA', start_date: '2026-01', end_date: null, ...extra });
const managerItem = (i: number, manager: number, extra: Record<string, unknown> = {}) => ({ user: user(i), manager: user(manager), ...extra });
const pointers = (body: { errors: { pointer: string }[] }) => body.errors.map((error) => error.pointer);

/**
 * Each case as a subtest, all on one server: a refused request writes nothing, so each meets the
 * fixture as it was. `pointed` reads the pointers of an answer as the case lists them.
 */
async function eachRefused(
  t: TestContext,
  server: () => Promise<TestServer>,
  status: number,
  cases: readonly [string, { data: unknown; pointers: string[] }][],
  pointed: (body: { errors: { pointer: string }[] }) => string[],
): Promise<void> {
  const { put } = await tenantWithFixture(server);
  for (const [name, { data, pointers: want }] of cases) {
    await t.test(`${name}: ${status} pointing at ${want.join(', ')}`, async () => {
      const response = await put(data);
      assert.equal(response.status, status, response.text);
      assert.deepEqual(pointed(response.body), want);
    });
  }
}

describe('400: what the schema and the dates refuse', () => {
  const sharedServer = describeServer();
  const badMonths = ['2026-13', '2026-00', '2026-1', '26-01', '2026-01-01', '2026/01', '', ' 2026-01'];
  const cases: [string, { data: unknown; pointers: string[] }][] = [
    ...badMonths.flatMap((month): [string, { data: unknown; pointers: string[] }][] => [
      [`group start_date ${JSON.stringify(month)}`, { data: [groupItem(0), groupItem(1, { start_date: month })], pointers: ['/data/1/start_date'] }],
      [`group end_date ${JSON.stringify(month)}`, { data: [groupItem(1, { end_date: month })], pointers: ['/data/0/end_date'] }],
      [`manager start_date ${JSON.stringify(month)}`, { data: [managerItem(1, 2, { start_date: month })], pointers: ['/data/0/start_date'] }],
    ]),
    ['a month as a number', { data: [groupItem(0, { start_date: 202601 })], pointers: ['/data/0/start_date'] }],
    ['group item without start_date', { data: [groupItem(0, { start_date: undefined })], pointers: ['/data/0/start_date'] }],
    ['group item without group', { data: [groupItem(0, { group: undefined })], pointers: ['/data/0/group'] }],
    ['an empty group name', { data: [groupItem(0, { group: '' })], pointers: ['/data/0/group'] }],
    ['a user that is no e-mail address', { data: [groupItem(0, { user: 'user0' })], pointers: ['/data/0/user'] }],
    ['an extra field in a group item', { data: [groupItem(0, { colour: 'red' })], pointers: ['/data/0/colour'] }],
    ['an extra field in a manager item', { data: [managerItem(0, 1, { group: 'NA' , extra: 1 })], pointers: ['/data/0'] }],
    ['a manager item with group fields', { data: [managerItem(0, 1, { group_dimension: 'region' })], pointers: ['/data/0'] }],
    ['an item of neither form', { data: [groupItem(0), { user: user(1), start_date: '2026-01' }], pointers: ['/data/1'] }],
    ['an empty object', { data: [{}], pointers: ['/data/0'] }],
    ['an item that is no object', { data: [groupItem(0), 5, 'x', null, []], pointers: ['/data/1', '/data/2', '/data/3', '/data/4'] }],
    ['a broken item deep in the list', { data: [...Array.from({ length: 17 }, (_, i) => groupItem(i % 5, { group_dimension: `d${i}` })), groupItem(0, { start_date: '2026-1' })], pointers: ['/data/17/start_date'] }],
    ['two broken items', { data: [groupItem(0, { end_date: '2026-13' }), groupItem(1), managerItem(2, 3, { end_date: 'soon' })], pointers: ['/data/0/end_date', '/data/2/end_date'] }],
    ['an empty data', { data: [], pointers: ['/data'] }],
    ['more than 200 items', { data: Array.from({ length: 201 }, (_, i) => groupItem(i % 5, { start_date: `${2000 + i}-01`, end_date: `${2000 + i}-12` })), pointers: ['/data'] }],
    ['data that is no array', { data: groupItem(0), pointers: ['/data'] }],
    ['group start after end', { data: [groupItem(0, { start_date: '2026-05', end_date: '2026-04' })], pointers: ['/data/0/end_date'] }],
    ['manager start after end', { data: [groupItem(0), managerItem(1, 2, { start_date: '2027-01', end_date: '2026-12' })], pointers: ['/data/1/end_date'] }],
  ];
  test('each case refused', (t) => eachRefused(t, sharedServer, 400, cases, (body) => [...new Set(pointers(body))]));

  test('a body without data, or with another field: 400', async () => {
    const { server, fixture } = await tenantWithFixture(sharedServer);
    const call = (json: unknown) => server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json });
    assert.deepEqual(pointers((await call({})).body), ['/data']);
    assert.deepEqual(pointers((await call({ data: [groupItem(0)], more: 1 })).body), ['/more']);
    assert.equal((await call([groupItem(0)])).status, 400);
  });

  test('exactly 200 items are accepted', async () => {
    const { put } = await tenantWithFixture(sharedServer);
    const data = Array.from({ length: 200 }, (_, i) => groupItem(i % 5, { start_date: `${2000 + Math.floor(i / 5)}-01`, end_date: `${2000 + Math.floor(i / 5)}-12` }));
    const response = await put(data);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.count, 200);
  });
});

describe('422: rules that need the stored data', () => {
  const sharedServer = describeServer();
  const cases: [string, { data: unknown[]; pointers: string[] }][] = [
    ['unknown user', { data: [groupItem(0), groupItem(0, { user: 'nobody@acme.example', start_date: '2027-01' })], pointers: ['/data/1/user'] }],
    ['a user of another tenant', { data: [groupItem(0, { user: 'user0@other.example' })], pointers: ['/data/0/user'] }],
    ['unknown manager', { data: [managerItem(0, 1, { manager: 'nobody@acme.example' })], pointers: ['/data/0/manager'] }],
    ['unknown user of a manager item', { data: [managerItem(0, 1, { user: 'nobody@acme.example' })], pointers: ['/data/0/user'] }],
    ['unknown dimension', { data: [groupItem(0, { group_dimension: 'Region' })], pointers: ['/data/0/group_dimension'] }],
    ['every unknown is listed', { data: [groupItem(0, { group_dimension: 'x' }), groupItem(1), managerItem(2, 3, { manager: 'x@acme.example' })], pointers: ['/data/0/group_dimension', '/data/2/manager'] }],
    ['own manager', { data: [managerItem(3, 3)], pointers: ['/data/0/manager'] }],
    ['own manager, written in another case', { data: [managerItem(3, 3, { manager: 'USER3@ACME.example' })], pointers: ['/data/0/manager'] }],
    ['a cycle of three in one payload', { data: [managerItem(0, 1), managerItem(1, 2), managerItem(2, 0, { start_date: '2026-05', end_date: '2026-05' })], pointers: ['/data/2/manager'] }],
    ['a cycle of two only where the periods meet', { data: [managerItem(0, 1, { end_date: '2026-03' }), managerItem(1, 0, { start_date: '2026-03' })], pointers: ['/data/1/manager'] }],
  ];
  test('each case refused', (t) => eachRefused(t, sharedServer, 422, cases, pointers));

  test('a cycle through stored managers, in the months where it would close', async () => {
    const { put } = await tenantWithFixture(sharedServer);
    assert.equal((await put([managerItem(1, 2), managerItem(2, 3, { start_date: '2026-01', end_date: '2026-06' })])).status, 200);
    const closing = await put([groupItem(4), managerItem(3, 1, { start_date: '2026-06' })]);
    assert.equal(closing.status, 422, closing.text);
    assert.deepEqual(pointers(closing.body), ['/data/1/manager']);
    assert.match(closing.body.errors[0].message, /2026-06/);
    const after = await put([managerItem(3, 1, { start_date: '2026-07' })]);
    assert.equal(after.status, 200, 'no month where user2 reports to user3 and user3 to user1');
    const overridden = await put([managerItem(2, 4, { start_date: '2026-06', end_date: '2026-06' }), managerItem(3, 1, { start_date: '2026-06' })]);
    assert.equal(overridden.status, 200, 'the chain is cut by an item of the same request');
  });

  const overlapCases: [string, { data: unknown[]; index: number; other: number }][] = [
    ['the same period', { data: [groupItem(0), groupItem(0)], index: 1, other: 0 }],
    ['one shared month', { data: [groupItem(1), groupItem(0, { end_date: '2026-03' }), groupItem(0, { group: 'EMEA', start_date: '2026-03', end_date: '2026-08' })], index: 2, other: 1 }],
    ['an open end over a later period', { data: [groupItem(0, { start_date: '2020-01' }), groupItem(0, { start_date: '2030-01', end_date: '2030-02' })], index: 1, other: 0 }],
    ['the same user in another case', { data: [groupItem(0), groupItem(0, { user: 'USER0@ACME.EXAMPLE', start_date: '2027-01' })], index: 1, other: 0 }],
    ['two manager items', { data: [managerItem(0, 1, { end_date: '2026-01' }), managerItem(0, 2, { start_date: '2026-01' })], index: 1, other: 0 }],
    ['two manager items since always', { data: [managerItem(0, 1, { end_date: '2020-01' }), managerItem(0, 2, { end_date: '2030-01' })], index: 1, other: 0 }],
  ];
  test('each overlap in the payload refused', async (t) => {
    const { put } = await tenantWithFixture(sharedServer);
    for (const [name, { data, index, other }] of overlapCases) {
      await t.test(`overlap in the payload, ${name}: 422 at /data/${index}, detail naming /data/${other}`, async () => {
        const response = await put(data);
        assert.equal(response.status, 422, response.text);
        assert.deepEqual(pointers(response.body), [`/data/${index}`]);
        assert.match(response.body.detail, new RegExp(`/data/${other}\\b`));
      });
    }
  });

  test('no overlap: adjacent periods, other dimensions, group and manager items of one user', async () => {
    const { put } = await tenantWithFixture(sharedServer);
    const data = [
      groupItem(0, { end_date: '2026-03' }),
      groupItem(0, { start_date: '2026-04' }),
      groupItem(0, { group_dimension: 'segment' }),
      managerItem(0, 1, { end_date: '2026-03' }),
      managerItem(0, 2, { start_date: '2026-04' }),
    ];
    const response = await put(data);
    assert.equal(response.status, 200, response.text);
  });
});

describe('the body before validation: 413, 415, bad JSON', () => {
  const sharedServer = describeServer();
  test('a body over the limit is a 413', async (t) => {
    const { server, fixture } = await serverWithFixture(t, { bodyLimit: 2000 });
    const data = Array.from({ length: 40 }, (_, i) => groupItem(i % 5, { start_date: `${2000 + i}-01`, end_date: `${2000 + i}-01` }));
    assert.ok(JSON.stringify({ data }).length > 2000);
    const response = await server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data } });
    assert.equal(response.status, 413);
    const small = await server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data: data.slice(0, 2) } });
    assert.equal(small.status, 200, 'a body under the limit passes');
  });

  test('a body that is not declared as JSON is a 415', async () => {
    const { server, fixture } = await tenantWithFixture(sharedServer);
    const raw = JSON.stringify({ data: [groupItem(0)] });
    const response = await server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, raw, headers: { 'Content-Type': 'text/plain' } });
    assert.equal(response.status, 415);
  });

  test('a body that does not parse is a 400', async () => {
    const { server, fixture } = await tenantWithFixture(sharedServer);
    const response = await server.call('PUT', '/v1/users/groups/bulk', {
      key: fixture.key,
      raw: '{"data": [',
      headers: { 'Content-Type': 'application/json' },
    });
    assert.equal(response.status, 400);
  });

  test('without a key: 401, whatever the body', async () => {
    const { server } = await tenantWithFixture(sharedServer);
    const response = await server.call('PUT', '/v1/users/groups/bulk', { json: { data: [5] } });
    assert.equal(response.status, 401);
  });
});
