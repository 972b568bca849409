import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildFixture } from '../support/fixture.js';
import { shared, startTestServer, withOtherStore } from '../support/harness.js';

/**
 * One server for the file's tests, each test with tenants of its own (`acme1`, `globex2`, ...): a
 * test's keys reach only its own tenants, whose names no other test uses; what one test does to
 * its keys (a revocation, a row changed) touches no other test's.
 */
type Spec = { records?: number; deals?: number };
let tests = 0;

describe('tenants and API keys', () => {
  const sharedServer = shared((scope) => startTestServer(scope));
  /** The shared server with this test's fixture tenants `acme<n>` and, when `globexSpec` is given, `globex<n>`. */
  const serverWith = async (acmeSpec: Spec, globexSpec?: Spec) => {
    const server = await sharedServer();
    tests += 1;
    const tenant = async (name: string, spec: Spec) => ({ ...(await buildFixture(server.store, { tenant: name, ...spec })), name });
    const acme = await tenant(`acme${tests}`, acmeSpec);
    const globex = globexSpec && (await tenant(`globex${tests}`, globexSpec));
    return { server, acme, globex: globex! };
  };

  test('missing, unknown, malformed and revoked keys get the same 401 body [conf:auth-x-api-key]', async () => {
    const { server, acme: fixture } = await serverWith({});
    const revoked = await server.store.createKey(fixture.name);
    assert.equal(await server.store.revokeKey(revoked.key), true);
    const unknownSecret = fixture.key.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    const cases: [string, string | undefined][] = [
      ['missing', undefined],
      ['empty', ''],
      ['malformed', 'not-a-key'],
      ['unknown id', 'cdk_000000000000_' + 'A'.repeat(43)],
      ['right id, wrong secret', unknownSecret],
      ['revoked', revoked.key],
    ];
    const bodies = new Set<string>();
    for (const [name, key] of cases) {
      for (const path of ['/v1/reporting', '/v1/tables/deals/records']) {
        const response = await server.call('GET', path, key === undefined ? {} : { key });
        assert.equal(response.status, 401, `${name} key on ${path}`);
        bodies.add(response.text);
      }
    }
    assert.equal(bodies.size, 1, 'the body never says which kind of bad key it was');
    const ok = await server.call('GET', '/v1/reporting?limit=1', { key: fixture.key });
    assert.equal(ok.status, 200);
  });

  test('a revocation by another process takes effect on the next request', async () => {
    const { server, acme: fixture } = await serverWith({});
    assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key: fixture.key })).status, 200);
    assert.equal(await withOtherStore(server.database, (other) => other.revokeKey(fixture.key)), true);
    assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key: fixture.key })).status, 401);
  });

  test('a key used before is checked again: a wrong secret under its id, a revocation by the server itself', async () => {
    const { server, acme: fixture } = await serverWith({});
    const other = await server.store.createKey(fixture.name);
    const wrongSecret = other.key.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    for (let round = 0; round < 2; round += 1) {
      assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key: other.key })).status, 200);
      assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key: wrongSecret })).status, 401);
    }
    assert.equal(await server.store.revokeKey(other.key), true);
    assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key: other.key })).status, 401);
    assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key: fixture.key })).status, 200);
  });

  test('a key used before whose stored row now names another tenant reads that tenant on the next request', async () => {
    const { server, acme, globex } = await serverWith({ records: 3 }, { records: 2 });
    const ids = async () => ((await server.call('GET', '/v1/reporting', { key: acme.key })).body.data as { id: string }[]).map((record) => record.id);
    assert.deepEqual(await ids(), [0, 1, 2].map((i) => `${acme.name}-r${i}`));
    // As if the key had been deleted and an id made again, the same, for the other tenant.
    const id = /^cdk_([0-9a-f]+)_/.exec(acme.key)![1]!;
    await server.sql.rows('UPDATE api_keys SET tenant_id = (SELECT id FROM tenants WHERE name = ?) WHERE id = ?', globex.name, id);
    assert.deepEqual(await ids(), [0, 1].map((i) => `${globex.name}-r${i}`));
  });

  test('a key created by another process works on the next request', async () => {
    const { server, acme } = await serverWith({});
    const { key } = await withOtherStore(server.database, (other) => other.createKey(acme.name));
    assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key })).status, 200);
  });

  test('a key sees only its own tenant: same ids, e-mails and table key elsewhere stay invisible', async () => {
    const { server, acme, globex } = await serverWith({ records: 12, deals: 3 }, { records: 5, deals: 4 });
    const acmePage = await server.call('GET', '/v1/reporting', { key: acme.key });
    const globexPage = await server.call('GET', '/v1/reporting', { key: globex.key });
    assert.equal(acmePage.body.count, 12);
    assert.ok(acmePage.body.data.every((r: { id: string }) => r.id.startsWith(`${acme.name}-`)));
    assert.equal(globexPage.body.count, 5);
    assert.ok(globexPage.body.data.every((r: { id: string }) => r.id.startsWith(`${globex.name}-`)));
    const globexDeals = await server.call('GET', '/v1/tables/deals/records', { key: globex.key });
    assert.deepEqual(globexDeals.body.data.map((r: { id: string }) => r.id), [0, 1, 2, 3].map((i) => `${globex.name}-d${i}`));
  });

  test('keys are stored only as hashes and listed without secrets', async () => {
    const { server, acme } = await serverWith({});
    const { key, id } = await server.store.createKey(acme.name);
    const secret = key.slice('cdk_'.length + id.length + 1);
    const [stored] = await server.sql.rows('SELECT * FROM api_keys WHERE id = ?', id);
    assert.ok(!JSON.stringify(stored, (_k, v) => (v?.type === 'Buffer' ? Buffer.from(v.data).toString('base64url') : v)).includes(secret));
    const hash = await server.sql.value('SELECT secret_hash FROM api_keys WHERE id = ?', id);
    assert.equal((hash as Buffer).length, 32);
    const listed = JSON.stringify(await server.store.listKeys(acme.name));
    assert.ok(listed.includes(id) && !listed.includes(secret));
    assert.ok(secret.length >= 22, 'at least 128 bits of entropy in base64url');
  });
});
