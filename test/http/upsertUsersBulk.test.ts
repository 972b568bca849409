import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixtureUser } from '../support/fixture.js';
import { shared } from '../support/harness.js';
import { USERS, usersServer } from '../support/usersServer.js';

/**
 * PUT /v1/users/bulk (docs/rules.md#users) on one server: new users, fields left out and
 * cleared, custom attributes, e-mails without regard to case, the user object inside the
 * records (sync and ETags), and every rule that refuses a request whole. Each test writes users
 * of its own. The fixture has 12 users `user{i}@acme.example` and 48 records (user `u{i % 12}`).
 */
const served = shared(usersServer);

const asStored = (i: number, changes: Record<string, unknown> = {}) => ({ ...fixtureUser('acme', i), ...changes });
const newUser = (n: string) => ({
  email: `${n}@acme.example`,
  id: `id-${n}`,
  name: `New ${n}`,
  role: 'SDR',
  currency: 'USD',
  calculation_currency: 'EUR',
  country: 'US',
  code: `N-${n}`,
});

test('a new user is created with its attributes, and the attribution bulks know it at once [conf:users-envelope] [conf:users-custom-declared-by-use] [conf:users-response]', async () => {
  const { put, server, fixture } = await served();
  const attribute = { user: 'nina@acme.example', group_dimension: 'region', group: 'EMEA', start_date: '2026-01' };
  const before = await server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data: [attribute] } });
  assert.equal(before.status, 422, before.text);

  const response = await put([{ ...newUser('nina'), tier: 'gold', quota: 1200, ramping: false }]);
  assert.equal(response.status, 200, response.text);
  const { email, id, ...rest } = newUser('nina');
  assert.deepEqual(Object.keys(response.body.data[0] as object).slice(8), ['quota', 'ramping', 'tier'], 'attributes in key order');
  assert.deepEqual(response.body, { count: 1, data: [{ id, email, ...rest, quota: 1200, ramping: false, tier: 'gold' }] });

  const after = await server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data: [attribute] } });
  assert.equal(after.status, 200, after.text);
});

test('a field left out stays; an attribute sent as null is removed; the e-mail matches without regard to case and is stored as sent [conf:users-match-email] [conf:users-left-out-unchanged]', async () => {
  const { put } = await served();
  const first = await put([{ email: 'user1@acme.example', role: 'Manager', tier: 'silver', region_code: 7 }]);
  assert.equal(first.status, 200, first.text);
  assert.deepEqual(first.body.data, [{ ...asStored(1, { role: 'Manager' }), region_code: 7, tier: 'silver' }]);
  const second = await put([{ email: 'USER1@Acme.Example', tier: null }]);
  assert.equal(second.status, 200, second.text);
  assert.deepEqual(second.body.data, [{ ...asStored(1, { role: 'Manager', email: 'USER1@Acme.Example' }), region_code: 7 }]);
  const again = await put([{ email: 'USER1@Acme.Example', tier: null }]);
  assert.deepEqual(again.body, second.body, 'the same request again leaves the same user');
});

test("a renamed user's records show the new user object, a sync sends exactly those records, and the ETag changes [conf:users-standard-fields]", async () => {
  const { put, get } = await served();
  const synced = await get('/v1/reporting?changed_since=0&limit=2000');
  assert.equal(synced.status, 200, synced.text);
  const page = await get('/v1/reporting?limit=5');
  const etag = page.headers.get('etag')!;

  const response = await put([{ email: 'user2@acme.example', name: 'Renamed Two', country: 'DE' }]);
  assert.equal(response.status, 200, response.text);

  const changed = await get(`/v1/reporting?changed_since=${synced.body.sync_token}&limit=2000`);
  assert.equal(changed.status, 200, changed.text);
  const want = Array.from({ length: 48 }, (_, i) => i).filter((i) => i % USERS === 2);
  assert.deepEqual(changed.body.data.map((record: { id: string }) => record.id).sort(), want.map((i) => `acme-r${i}`).sort());
  for (const record of changed.body.data) assert.deepEqual(record.user, asStored(2, { name: 'Renamed Two', country: 'DE' }));
  const reread = await get('/v1/reporting?limit=5', { 'If-None-Match': etag });
  assert.equal(reread.status, 200, 'a new ETag');
  assert.notEqual(reread.headers.get('etag'), etag);

  const unchanged = await put([{ email: 'user2@acme.example', tier: 'gold' }]);
  assert.equal(unchanged.status, 200, unchanged.text);
  const none = await get(`/v1/reporting?changed_since=${changed.body.sync_token}&limit=2000`);
  assert.equal(none.body.count, 0, 'an attribute is not part of the records');
});

test('every broken rule is a 422 at its item and field, and nothing of the request is written [conf:users-all-or-nothing]', async () => {
  const { put, get } = await served();
  const cases: [string, { data: unknown[]; pointers: string[] }][] = [
    ['a standard field emptied beside a broken item', { data: [{ email: 'user3@acme.example', name: null, role: null }, { email: 'user3@acme.example', id: 'u4' }], pointers: ['/data/1/email', '/data/1/id'] }],
    ['an id that is not the stored one', { data: [{ email: 'user3@acme.example', id: 'u4' }], pointers: ['/data/0/id'] }],
    ['a new user with the id of another', { data: [{ ...newUser('yan'), id: 'u3' }], pointers: ['/data/0/id'] }],
    ['two items of one user', { data: [{ email: 'user3@acme.example', role: 'A' }, { email: 'User3@acme.example', role: 'B' }], pointers: ['/data/1/email'] }],
    ['two new users of one id', { data: [newUser('xia'), { ...newUser('xu'), id: 'id-xia' }], pointers: ['/data/1/id'] }],
  ];
  for (const [name, { data, pointers }] of cases) {
    const withValid = [{ email: 'user5@acme.example', code: 'CHANGED' }, ...data];
    const response = await put(withValid);
    assert.equal(response.status, 422, `${name}: ${response.text}`);
    const shifted = pointers.map((pointer) => pointer.replace(/^\/data\/(\d+)/, (_, i: string) => `/data/${Number(i) + 1}`));
    assert.deepEqual(response.body.errors.map((e: { pointer: string }) => e.pointer), shifted, name);
  }
  for (const i of [3, 5]) {
    const records = await get(`/v1/reporting?user=user${i}@acme.example&limit=1`);
    assert.deepEqual(records.body.data[0].user, asStored(i), 'nothing was written');
  }
});

test('the schema: keys of custom attributes, their values, and at most 200 items (400) [conf:users-max-200] [conf:users-custom-attributes]', async () => {
  const { put } = await served();
  const cases: [string, unknown[], string][] = [
    ['a key that is no API key', [{ email: 'user4@acme.example', 'Bad-Key': 1 }], '/data/0/Bad-Key'],
    ['an object as a value', [{ email: 'user4@acme.example', tier: { a: 1 } }], '/data/0/tier'],
    ['no e-mail', [{ name: 'x' }], '/data/0/email'],
    ['a currency that is no code', [{ email: 'user4@acme.example', currency: 'euro' }], '/data/0/currency'],
    ['201 items', Array.from({ length: 201 }, (_, i) => ({ email: `user${i}@acme.example` })), '/data'],
  ];
  for (const [name, data, pointer] of cases) {
    const response = await put(data);
    assert.equal(response.status, 400, `${name}: ${response.text}`);
    assert.ok(response.body.errors.some((e: { pointer: string }) => e.pointer === pointer), `${name}: ${response.text}`);
  }
});
