import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { shared, startTestServer } from '../support/harness.js';

/**
 * Key scopes (docs/rules.md#keys): a key created with scope `read` reads as any key and gets a
 * `403` problem on every write (a push of table records too), before its body is read, with nothing written.
 */
const served = shared(async (scope) => {
  let fixture!: Fixture;
  const server = await startTestServer(scope, {}, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme', users: 4, records: 8 });
  });
  const reader = (await server.store.createKey('acme', 'read')).key;
  return { server, fixture, reader };
});

const WRITES: [string, string, unknown[]][] = [
  ['PUT', '/v1/users/groups/bulk', [{ user: 'user1@acme.example', manager: 'user2@acme.example' }]],
  ['PUT', '/v1/users/managers/bulk', [{ user: 'user1@acme.example', manager: 'user2@acme.example' }]],
  ['PUT', '/v1/users/bulk', [{ email: 'user1@acme.example', name: 'Read Only' }]],
  ['DELETE', '/v1/users/archive/bulk', [{ user: 'user3@acme.example', end_date: '2026-01' }]],
  ['POST', '/v1/tables/deals/records/bulk', [{ id: 'acme-d0', name: 'Read Only' }]],
];

test('a read key reads', async () => {
  const { server, reader } = await served();
  for (const path of ['/v1/reporting?limit=2', '/v1/users/managers', '/v1/tables']) {
    const response = await server.call('GET', path, { key: reader });
    assert.equal(response.status, 200, `${path}: ${response.text}`);
  }
});

test('a read key gets 403 on every write, nothing written, even with a body the contract refuses', async () => {
  const { server, fixture, reader } = await served();
  for (const [method, path, data] of WRITES) {
    for (const json of [{ data }, { data: 'not a list' }]) {
      const response = await server.call(method, path, { key: reader, json });
      assert.equal(response.status, 403, `${method} ${path}: ${response.text}`);
      assert.equal(response.body.type, 'urn:compdata:problem:forbidden');
    }
  }
  const managers = await server.call('GET', '/v1/users/managers?user=user1@acme.example', { key: fixture.key });
  assert.equal(managers.body.count, 0, 'nothing was written');
  const records = await server.call('GET', '/v1/reporting?user=user1@acme.example&limit=1', { key: fixture.key });
  assert.equal(records.body.data[0].user.name, 'User 1');
  for (const [method, path, data] of WRITES) {
    const response = await server.call(method, path, { key: fixture.key, json: { data } });
    assert.equal(response.status, method === 'POST' ? 202 : 200, `a write key writes: ${method} ${path}: ${response.text}`);
  }
});
