import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { startTestServer } from '../support/harness.js';

const TOKEN = 'admin-token-0123456789abcdef';

describe('the administration API', () => {
  test('a missing or wrong token, or a tenant key, gets a 401 problem; the token does not open the public API', async (t) => {
    let fixture!: Fixture;
    const server = await startTestServer(t, { adminToken: TOKEN }, async (store) => {
      fixture = await buildFixture(store, { tenant: 'acme' });
    });
    const refusals = [
      await server.call('POST', '/admin/v1/sandboxes', { json: {} }),
      await server.call('POST', '/admin/v1/sandboxes', { json: {}, bearer: `${TOKEN}x` }),
      await server.call('POST', '/admin/v1/sandboxes', { json: {}, bearer: TOKEN.slice(0, -1) }),
      await server.call('POST', '/admin/v1/sandboxes', { json: {}, key: fixture.key }),
      await server.call('POST', '/admin/v1/sandboxes', { json: {}, bearer: fixture.key }),
      await server.call('POST', '/admin/v1/sandboxes', { json: {}, headers: { Authorization: `Basic ${TOKEN}` } }),
    ];
    for (const response of refusals) {
      assert.equal(response.status, 401);
      assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal(response.body.type, 'urn:compdata:problem:unauthorized');
    }
    const publicWithToken = await server.call('GET', '/v1/reporting', { bearer: TOKEN });
    assert.equal(publicWithToken.status, 401);
    assert.equal((await server.call('GET', '/v1/reporting', { key: TOKEN })).status, 401);
  });

  test('without a token configured, every /admin path is a 404', async (t) => {
    const server = await startTestServer(t, {});
    for (const path of ['/admin/v1/sandboxes', '/admin', '/admin/v1/tenants']) {
      const response = await server.call('POST', path, { json: {}, bearer: TOKEN });
      assert.equal(response.status, 404, path);
    }
  });

  test('a sandbox with and without a name: its key reads its tenant and only it; a name taken is a 409', async (t) => {
    let acme!: Fixture;
    const server = await startTestServer(t, { adminToken: TOKEN }, async (store) => {
      acme = await buildFixture(store, { tenant: 'acme', records: 2 });
    });
    const named = await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: 'sb-one', users: 5, records: 30, seed: 7 } });
    assert.equal(named.status, 201);
    assert.equal(named.body.tenant.name, 'sb-one');
    assert.equal(named.body.key.scope, 'write');
    const page = await server.call('GET', '/v1/reporting?limit=100', { key: named.body.key.key });
    assert.equal(page.status, 200);
    assert.equal(page.body.data.length, 30);
    assert.ok(!page.body.data.some((record: { id: string }) => record.id.startsWith('acme-')));
    const acmePage = await server.call('GET', '/v1/reporting', { key: acme.key });
    assert.deepEqual(acmePage.body.data.map((record: { id: string }) => record.id), ['acme-r0', 'acme-r1']);

    const unnamed = await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { key_scope: 'read', records: 0 } });
    assert.equal(unnamed.status, 201);
    assert.match(unnamed.body.tenant.name, /^sandbox-[0-9a-f]{16}$/);
    assert.equal(unnamed.body.key.scope, 'read');
    const empty = await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN });
    assert.equal(empty.status, 201);
    assert.notEqual(empty.body.tenant.name, unnamed.body.tenant.name);

    for (const name of ['sb-one', 'acme']) {
      const taken = await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name } });
      assert.equal(taken.status, 409, name);
      assert.equal(taken.body.type, 'urn:compdata:problem:conflict');
    }
    const tooLarge = await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { records: 100_001, extra: 1 } });
    assert.equal(tooLarge.status, 400);
  });
});
