import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { shared, startTestServer } from '../support/harness.js';

/**
 * DELETE /v1/users/archive/bulk (docs/rules.md#archived-users) on one server: what an archived
 * user may still hold, the manager rule, all or nothing, and re-activation. Each test archives
 * users of its own (`user{i}@acme.example`, 16 users; user i holds records i, i + 16, ...).
 */
const served = shared(async (scope) => {
  let fixture!: Fixture;
  const server = await startTestServer(scope, {}, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme', users: 16, records: 32 });
  });
  const call = (method: string, path: string, data: unknown[]) => server.call(method, path, { key: fixture.key, json: { data } });
  return {
    archive: (data: unknown[]) => call('DELETE', '/v1/users/archive/bulk', data),
    managers: (data: unknown[]) => call('PUT', '/v1/users/managers/bulk', data),
    groups: (data: unknown[]) => call('PUT', '/v1/users/groups/bulk', data),
    users: (data: unknown[]) => call('PUT', '/v1/users/bulk', data),
    get: (path: string) => server.call('GET', path, { key: fixture.key }),
  };
});

const email = (i: number) => `user${i}@acme.example`;
const pointers = (body: { errors: { pointer: string }[] }) => body.errors.map((error) => error.pointer);
const utcMonth = (date: Date) => `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
const monthAfter = (month: string) => {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return m === 12 ? `${year + 1}-01` : `${year}-${String(m + 1).padStart(2, '0')}`;
};
const region = (i: number, end_date: string | null) => ({ user: email(i), group_dimension: 'region', group: 'NA', start_date: '2026-01', end_date });

test('an archived user keeps its history and holds no attribution past its last month [conf:archive-envelope] [conf:archive-message] [conf:archive-later-data]', async () => {
  const { archive, managers, groups, get } = await served();
  assert.equal((await managers([{ user: email(1), manager: email(2), start_date: '2026-01', end_date: '2026-06' }])).status, 200);
  const archived = await archive([{ user: 'User2@ACME.example', end_date: '2026-06' }]);
  assert.equal(archived.status, 200, archived.text);
  assert.deepEqual(archived.body, { message: 'users archived successfully' });

  const records = await get(`/v1/reporting?user=${email(2)}`);
  assert.deepEqual(records.body.data.map((record: { id: string }) => record.id), ['acme-r2', 'acme-r18'], 'its records stay');
  assert.equal((await get(`/v1/users/managers?user=${email(1)}`)).body.count, 1, 'its attributions stay');

  const asManager = await managers([{ user: email(3), manager: email(2), start_date: '2026-05' }]);
  assert.equal(asManager.status, 422, asManager.text);
  assert.deepEqual(pointers(asManager.body), ['/data/0/manager']);
  const asUser = await groups([region(2, null)]);
  assert.equal(asUser.status, 422, asUser.text);
  assert.deepEqual(pointers(asUser.body), ['/data/0/user']);
  assert.equal((await managers([{ user: email(3), manager: email(2), end_date: '2026-06' }])).status, 200, 'up to its last month');
  assert.equal((await groups([region(2, '2026-06')])).status, 200, 'up to its last month');
});

test('a user who manages someone after its last month is not archived, nor anyone of the request (422) [conf:archive-manager-error]', async () => {
  const { archive, managers, groups } = await served();
  assert.equal((await managers([{ user: email(4), manager: email(5), start_date: '2026-01' }])).status, 200);
  const response = await archive([{ user: email(6), end_date: '2026-01' }, { user: email(5), end_date: '2026-06' }]);
  assert.equal(response.status, 422, response.text);
  assert.deepEqual(pointers(response.body), ['/data/1/user']);
  assert.match(response.body.errors[0].message, /manages user4@acme\.example in 2026-07/);
  assert.equal((await groups([region(6, null)])).status, 200, 'the other item was not written');
  assert.equal((await managers([{ user: email(4), manager: email(9), start_date: '2026-07' }])).status, 200);
  assert.equal((await archive([{ user: email(5), end_date: '2026-06' }])).status, 200, 'once another manages from 2026-07');
});

test('unknown users and users named twice are a 422; more than 50 items or a bad month a 400 [conf:archive-max-50] [conf:archive-error-status]', async () => {
  const { archive } = await served();
  const unknown = await archive([{ user: 'nobody@acme.example', end_date: '2026-01' }, { user: email(7), end_date: '2026-01' }, { user: 'USER7@acme.example', end_date: '2026-02' }]);
  assert.equal(unknown.status, 422, unknown.text);
  assert.deepEqual(pointers(unknown.body), ['/data/0/user', '/data/2/user']);
  const many = await archive(Array.from({ length: 51 }, (_, i) => ({ user: email(i % 16), end_date: '2026-01' })));
  assert.equal(many.status, 400, many.text);
  const badMonth = await archive([{ user: email(7), end_date: '2026-13' }]);
  assert.equal(badMonth.status, 400, badMonth.text);
  assert.deepEqual(pointers(badMonth.body), ['/data/0/end_date']);
});

test('archived again, a user gets its new last month; PUT /v1/users/bulk re-activates it', async () => {
  const { archive, groups, users } = await served();
  assert.equal((await archive([{ user: email(8), end_date: '2026-03' }])).status, 200);
  assert.equal((await groups([region(8, '2026-05')])).status, 422);
  assert.equal((await archive([{ user: email(8), end_date: '2026-05' }])).status, 200);
  assert.equal((await groups([region(8, '2026-05')])).status, 200, 'the later month holds');
  assert.equal((await users([{ email: email(8), role: 'Rehired' }])).status, 200);
  assert.equal((await groups([region(8, null)])).status, 200, 'active again');
});

test("the reference's example: an item without end_date archives its user after the current month (UTC) [conf:archive-without-end-date]", async () => {
  const { archive, groups, managers } = await served();
  const monthBefore = utcMonth(new Date());
  const archived = await archive([{ user: email(10), end_date: '2026-06' }, { user: email(11) }]);
  assert.equal(archived.status, 200, archived.text);
  assert.deepEqual(archived.body, { message: 'users archived successfully' });
  const monthAfterCall = utcMonth(new Date());

  const current = { user: email(11), group_dimension: 'region', group: 'NA', start_date: monthBefore, end_date: monthBefore };
  assert.equal((await groups([current])).status, 200, 'active through the current month');
  const next = await groups([{ ...current, start_date: monthAfter(monthAfterCall), end_date: null }]);
  assert.equal(next.status, 422, next.text);
  assert.deepEqual(pointers(next.body), ['/data/0/user'], 'archived from the next month');
  const dated = await managers([{ user: email(12), manager: email(10), start_date: '2026-07' }]);
  assert.equal(dated.status, 422, 'the item with end_date is archived after its month, as ever');
});

test('without end_date, a user who manages someone after the current month is not archived (422)', async () => {
  const { archive, managers } = await served();
  assert.equal((await managers([{ user: email(13), manager: email(14), start_date: monthAfter(utcMonth(new Date())) }])).status, 200);
  const refused = await archive([{ user: email(14) }]);
  assert.equal(refused.status, 422, refused.text);
  assert.deepEqual(pointers(refused.body), ['/data/0/user']);
  const nullEnd = await archive([{ user: email(15), end_date: null }]);
  assert.equal(nullEnd.status, 400, 'end_date is a month or left out');
});
