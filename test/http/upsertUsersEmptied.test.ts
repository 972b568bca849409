import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixtureUser } from '../support/fixture.js';
import { shared } from '../support/harness.js';
import { USERS, usersServer } from '../support/usersServer.js';

/**
 * PUT /v1/users/bulk as the hosted reference has it (docs/rules.md#users): a new user needs
 * only its e-mail and gets its id from the service; `null` empties a standard field, and an
 * empty field reads as `""` (`XXX` for a currency) in the answer and in the records' user
 * object; emptying is a change for sync, v2's modification times and ETags. Each test writes
 * users of its own. The fixture has 12 users `user{i}@acme.example` and 48 records (user
 * `u{i % 12}`, every amount in EUR).
 */
const STATEMENTS_PATH = '/v2/reporting/2fa94265-8b29-8997-887d-7958c0ab8234/statements';
const served = shared(usersServer);

const EMPTY = { name: '', role: '', currency: 'XXX', calculation_currency: 'XXX', country: '', code: '' };
const SERVICE_ID = /^usr_[0-9a-f]{12}$/;

test('a new user sent with its e-mail only gets an id from the service and empty fields [conf:users-new-without-id]', async () => {
  const { put, server, fixture } = await served();
  const created = await put([{ email: 'Olga@acme.example', tier: 'gold' }]);
  assert.equal(created.status, 200, created.text);
  const [user] = created.body.data as { id: string }[];
  assert.match(user!.id, SERVICE_ID);
  assert.deepEqual(created.body, { count: 1, data: [{ id: user!.id, email: 'Olga@acme.example', ...EMPTY, tier: 'gold' }] });

  const again = await put([{ email: 'olga@acme.example', name: 'Olga' }]);
  assert.equal(again.status, 200, again.text);
  assert.deepEqual(again.body.data, [{ id: user!.id, email: 'olga@acme.example', ...EMPTY, name: 'Olga', tier: 'gold' }], 'the same user, its id kept');
  const attribution = { user: 'olga@acme.example', group_dimension: 'region', group: 'EMEA', start_date: '2026-01' };
  const attributed = await server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data: [attribution] } });
  assert.equal(attributed.status, 200, attributed.text);
});

test('new users of one request get distinct ids; an id sent as null is as if left out', async () => {
  const { put } = await served();
  const created = await put([{ email: 'pia@acme.example' }, { email: 'quinn@acme.example', id: null }, { email: 'user6@acme.example', id: null, role: 'Lead' }]);
  assert.equal(created.status, 200, created.text);
  const ids = (created.body.data as { id: string }[]).map((user) => user.id);
  assert.match(ids[0]!, SERVICE_ID);
  assert.match(ids[1]!, SERVICE_ID);
  assert.notEqual(ids[0], ids[1]);
  assert.deepEqual(created.body.data[2], { ...fixtureUser('acme', 6), role: 'Lead' }, 'a stored user keeps its id');
});

test('a new user may still be sent with an id of its client, and keeps it [conf:users-client-id]', async () => {
  const { put } = await served();
  const created = await put([{ email: 'rui@acme.example', id: 'crm-rui', currency: 'USD' }]);
  assert.equal(created.status, 200, created.text);
  assert.deepEqual(created.body.data, [{ id: 'crm-rui', email: 'rui@acme.example', ...EMPTY, currency: 'USD' }]);
  const taken = await put([{ email: 'sol@acme.example', id: 'crm-rui' }]);
  assert.equal(taken.status, 422, taken.text);
  assert.deepEqual(taken.body.errors.map((e: { pointer: string }) => e.pointer), ['/data/0/id']);
});

test('null empties each standard field; a field left out stays; the records show the emptied user [conf:users-null]', async () => {
  const { put, get } = await served();
  const cleared = await put([{ email: 'user1@acme.example', name: null, role: null, currency: null, calculation_currency: null, country: null, code: null }]);
  assert.equal(cleared.status, 200, cleared.text);
  const emptied = { id: 'u1', email: 'user1@acme.example', ...EMPTY };
  assert.deepEqual(cleared.body.data, [emptied]);
  const records = await get('/v1/reporting?user=user1@acme.example&limit=10');
  assert.equal(records.status, 200, records.text);
  assert.equal(records.body.count, 4);
  for (const record of records.body.data) assert.deepEqual(record.user, emptied);

  const partly = await put([{ email: 'user3@acme.example', role: null }]);
  assert.equal(partly.status, 200, partly.text);
  assert.deepEqual(partly.body.data, [{ ...fixtureUser('acme', 3), role: '' }], 'the fields left out stay');
  const refilled = await put([{ email: 'user1@acme.example', name: 'User 1', currency: 'GBP' }]);
  assert.deepEqual(refilled.body.data, [{ ...emptied, name: 'User 1', currency: 'GBP' }], 'an emptied field can be set again');
});

test('an e-mail cannot be emptied: null is a 400 and nothing is written [conf:users-null-email]', async () => {
  const { put, get } = await served();
  const refused = await put([{ email: 'user4@acme.example', name: null }, { email: null }]);
  assert.equal(refused.status, 400, refused.text);
  assert.ok(refused.body.errors.some((e: { pointer: string }) => e.pointer === '/data/1/email'), refused.text);
  const records = await get('/v1/reporting?user=user4@acme.example&limit=1');
  assert.deepEqual(records.body.data[0].user, fixtureUser('acme', 4), 'nothing was written');
});

test('emptying a field is a change: a sync sends exactly that user\'s records, v2 times move, the ETag changes [conf:users-null-sync]', async () => {
  const { put, get } = await served();
  const synced = await get('/v1/reporting?changed_since=0&limit=2000');
  assert.equal(synced.status, 200, synced.text);
  const v2Before = await get(`${STATEMENTS_PATH}?limit=2000`);
  assert.equal(v2Before.status, 200, v2Before.text);
  const etag = (await get('/v1/reporting?limit=5')).headers.get('etag')!;

  const response = await put([{ email: 'user7@acme.example', code: null }]);
  assert.equal(response.status, 200, response.text);

  const changed = await get(`/v1/reporting?changed_since=${synced.body.sync_token}&limit=2000`);
  const want = Array.from({ length: 48 }, (_, i) => i).filter((i) => i % USERS === 7).map((i) => `acme-r${i}`);
  assert.deepEqual(changed.body.data.map((record: { id: string }) => record.id).sort(), want.sort());
  for (const record of changed.body.data) assert.deepEqual(record.user, { ...fixtureUser('acme', 7), code: '' });
  const reread = await get('/v1/reporting?limit=5', { 'If-None-Match': etag });
  assert.equal(reread.status, 200, 'a new ETag');

  const v2After = await get(`${STATEMENTS_PATH}?limit=2000`);
  type V2 = { 'standard.id': string; 'standard.user': unknown; 'standard.last_modified_at': string };
  const timeOf = (body: { data: V2[] }) => new Map(body.data.map((record) => [record['standard.id'], record['standard.last_modified_at']]));
  const [before, after] = [timeOf(v2Before.body), timeOf(v2After.body)];
  for (const [id, time] of after) assert.equal(time !== before.get(id), want.includes(id), `${id}: moved exactly when its user changed`);
  const v2Record = (v2After.body.data as V2[]).find((record) => record['standard.id'] === want[0])!;
  assert.deepEqual(v2Record['standard.user'], { id: 'u7', email: 'user7@acme.example' }, "v2's reference keeps id and e-mail");

  const noChange = await put([{ email: 'user7@acme.example', code: null }]);
  assert.equal(noChange.status, 200, noChange.text);
  const none = await get(`/v1/reporting?changed_since=${changed.body.sync_token}&limit=2000`);
  assert.equal(none.body.count, 0, 'emptying an empty field again changes no record');
});

test("emptying a user's currencies leaves the amounts and currencies of its records as loaded", async () => {
  const { put, get } = await served();
  const before = await get('/v1/reporting?user=user8@acme.example&limit=10');
  const response = await put([{ email: 'user8@acme.example', currency: null, calculation_currency: null }]);
  assert.equal(response.status, 200, response.text);
  const after = await get('/v1/reporting?user=user8@acme.example&limit=10');
  assert.equal(after.body.count, before.body.count);
  for (const [i, record] of after.body.data.entries()) {
    const { user, ...rest } = record;
    assert.deepEqual(user, { ...fixtureUser('acme', 8), currency: 'XXX', calculation_currency: 'XXX' });
    const { user: _was, ...restBefore } = before.body.data[i];
    assert.deepEqual(rest, restBefore, 'payment, target, metrics and their currencies unchanged');
    assert.equal(rest.payment_currency, 'EUR');
  }
});
