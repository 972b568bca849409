import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { exchange, serveDatabase, shared, startTestServer } from '../support/harness.js';

/**
 * `Idempotency-Key` on the writes (docs/rules.md#retries): the same request again within a day
 * answers the first answer and writes nothing, on any server of the database; another request
 * with the key is a 422; a refused request is not remembered. Each test uses keys and users of
 * its own (`user{i}@acme.example`, 12 users).
 */
const served = shared(async (scope) => {
  let fixture!: Fixture;
  const server = await startTestServer(scope, {}, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme', users: 12, records: 24 });
  });
  const other = await serveDatabase(server.database);
  scope.after(() => other.close());
  const send = (method: string, path: string, data: unknown[], key: string, url = server.url) =>
    exchange(url, method, path, { key: fixture.key, json: { data }, headers: { 'Idempotency-Key': key } });
  return { server, fixture, other, send };
});

const email = (i: number) => `user${i}@acme.example`;

test('the same users bulk again answers the first answer, writes nothing, and so on another server', async () => {
  const { server, fixture, other, send } = await served();
  const synced = await server.call('GET', '/v1/reporting?changed_since=0&limit=2000', { key: fixture.key });
  const items = [{ email: email(1), name: 'Once' }];
  const first = await send('PUT', '/v1/users/bulk', items, 'users-1');
  assert.equal(first.status, 200, first.text);
  assert.equal(first.headers.get('idempotent-replayed'), null);
  const changed = await server.call('GET', `/v1/reporting?changed_since=${synced.body.sync_token}&limit=2000`, { key: fixture.key });
  assert.equal(changed.body.count, 2, "user 1's two records changed");
  const etag = (await server.call('GET', '/v1/reporting?limit=1', { key: fixture.key })).headers.get('etag');

  // Meanwhile another request renames the user again: a replay must not undo it.
  assert.equal((await server.call('PUT', '/v1/users/bulk', { key: fixture.key, json: { data: [{ email: email(1), name: 'Twice' }] } })).status, 200);
  const afterRename = (await server.call('GET', '/v1/reporting?limit=1', { key: fixture.key })).headers.get('etag');
  assert.notEqual(afterRename, etag);
  for (const url of [server.url, other.url]) {
    const again = await send('PUT', '/v1/users/bulk', items, 'users-1', url);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
  }
  const record = await server.call('GET', `/v1/reporting?user=${email(1)}&limit=1`, { key: fixture.key });
  assert.equal(record.body.data[0].user.name, 'Twice', 'the replay wrote nothing');
  const page = await server.call('GET', '/v1/reporting?limit=1', { key: fixture.key });
  assert.equal(page.headers.get('etag'), afterRename, 'the data version did not change');
});

test('the same key with another request is a 422 at the header; a refused request is not remembered', async () => {
  const { send } = await served();
  assert.equal((await send('PUT', '/v1/users/managers/bulk', [{ user: email(2), manager: email(3) }], 'managers-1')).status, 200);
  const replayed = await send('PUT', '/v1/users/managers/bulk', [{ user: email(2), manager: email(3) }], 'managers-1');
  assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
  const reused = await send('PUT', '/v1/users/managers/bulk', [{ user: email(2), manager: email(4) }], 'managers-1');
  assert.equal(reused.status, 422, reused.text);
  assert.deepEqual(reused.body.errors.map((e: { pointer: string }) => e.pointer), ['/header/Idempotency-Key']);
  const otherOperation = await send('PUT', '/v1/users/bulk', [{ email: email(2), role: 'X' }], 'managers-1');
  assert.equal(otherOperation.status, 422, otherOperation.text);

  const refused = await send('PUT', '/v1/users/bulk', [{ email: email(5), id: 'u6' }], 'refused-1');
  assert.equal(refused.status, 422, refused.text);
  const fixed = await send('PUT', '/v1/users/bulk', [{ email: email(5), name: 'Fixed' }], 'refused-1');
  assert.equal(fixed.status, 200, fixed.text);
  assert.equal(fixed.headers.get('idempotent-replayed'), null);
});

test('an archive sent again is not run again; a key is forgotten after a day', async () => {
  const { server, send } = await served();
  const region = { user: email(6), group_dimension: 'region', group: 'NA', start_date: '2026-01', end_date: null };
  const archive = () => send('DELETE', '/v1/users/archive/bulk', [{ user: email(6), end_date: '2026-02' }], 'archive-1');
  assert.equal((await archive()).status, 200);
  assert.equal((await send('PUT', '/v1/users/bulk', [{ email: email(6), role: 'Back' }], 'rehire-1')).status, 200);
  const again = await archive();
  assert.equal(again.status, 200, again.text);
  assert.deepEqual(again.body, { message: 'users archived successfully' });
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal((await send('PUT', '/v1/users/groups/bulk', [region], 'groups-1')).status, 200, 'still active: the archive was not run again');

  await server.sql.exec(`UPDATE idempotency_keys SET created_at = created_at - ${25 * 3600 * 1000} WHERE key = 'archive-1'`);
  const dayLater = await archive();
  assert.equal(dayLater.status, 200, dayLater.text);
  assert.equal(dayLater.headers.get('idempotent-replayed'), null);
  assert.equal((await send('PUT', '/v1/users/groups/bulk', [region], 'groups-2')).status, 422, 'archived again: run anew');
});
