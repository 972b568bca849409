import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildFixture } from '../support/fixture.js';
import { startTestServer, TEST_ENGINE } from '../support/harness.js';

/**
 * `Compdata-Consistency` on a server without read replicas (the replicas themselves:
 * test/store/postgres/replicas.test.ts): a write's answer carries a token on PostgreSQL (none on
 * SQLite, which has no log to name); a read takes any token of digits, even one from the future
 * (the primary has everything), and refuses anything else with a 400; no read names a server.
 */
test('Compdata-Consistency without replicas: issued on PostgreSQL writes, taken by reads, 400 when not a token', async (t) => {
  let key!: string;
  const server = await startTestServer(t, {}, async (store) => {
    key = (await buildFixture(store, { tenant: 'acme', users: 3, records: 10 })).key;
  });
  const put = await server.call('PUT', '/v1/users/groups/bulk', {
    key,
    json: { data: [{ user: 'user1@acme.example', group_dimension: 'region', group: 'LATAM', start_date: '2026-01' }] },
  });
  assert.equal(put.status, 200);
  const token = put.headers.get('compdata-consistency');
  assert.equal(token !== null, TEST_ENGINE === 'postgres', `token: ${token}`);

  for (const [name, sent, status] of [
    ['the write\'s token', token ?? '1', 200],
    ['a token past every write', '99999999999999999999', 200],
    ['no token', undefined, 200],
    ['letters', 'abc', 400],
    ['an LSN as PostgreSQL writes it', '0/3000060', 400],
  ] as const) {
    const read = await server.call('GET', '/v1/reporting?limit=2', { key, headers: sent === undefined ? {} : { 'Compdata-Consistency': sent } });
    assert.equal(read.status, status, `${name}: ${read.text}`);
    assert.equal(read.headers.get('compdata-served-by'), null, name);
  }
});
