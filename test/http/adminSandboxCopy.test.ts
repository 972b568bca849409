import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { exportOf } from '../support/datasets.js';
import { buildFixture, fixtureUser, type Fixture } from '../support/fixture.js';
import { startTestServer } from '../support/harness.js';

const TOKEN = 'admin-token-0123456789abcdef';

describe('sandboxes copied from a template', () => {
  test('the copy exports byte for byte as the template; the template is unchanged, also by writes to the copy', async (t) => {
    let golden!: Fixture;
    const server = await startTestServer(t, { adminToken: TOKEN }, async (store) => {
      golden = await buildFixture(store, { tenant: 'golden', users: 6, records: 40, deals: 9 });
    });
    // A second template with everything the generator makes: attributions, statements, archived users.
    const seeded = await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: 'seeded', users: 12, records: 300, seed: 3 } });
    assert.equal(seeded.status, 201);

    for (const template of ['golden', 'seeded']) {
      const before = await exportOf(server.store, template);
      const copy = await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: `${template}-copy`, template, key_scope: 'write' } });
      assert.equal(copy.status, 201, copy.text);
      assert.equal(copy.body.tenant.name, `${template}-copy`);
      assert.equal(await exportOf(server.store, `${template}-copy`), before, template);
      assert.equal(await exportOf(server.store, template), before, template);
      // Only the data is copied: the copy has its one new key.
      const keys = await server.call('GET', `/admin/v1/tenants/${template}-copy/keys`, { bearer: TOKEN });
      assert.deepEqual(keys.body.data.map((key: { id: string }) => key.id), [copy.body.key.id]);
    }

    const goldenBefore = await exportOf(server.store, 'golden');
    const copy = await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { template: 'golden' } });
    assert.equal(copy.status, 201);
    assert.match(copy.body.tenant.name, /^sandbox-[0-9a-f]{16}$/);
    const copyPage = await server.call('GET', '/v1/reporting?limit=100', { key: copy.body.key.key });
    const goldenPage = await server.call('GET', '/v1/reporting?limit=100', { key: golden.key });
    assert.deepEqual(copyPage.body.data, goldenPage.body.data);
    const write = await server.call('PUT', '/v1/users/bulk', { key: copy.body.key.key, json: { data: [fixtureUser('golden', 77)] } });
    assert.equal(write.status, 200, write.text);
    assert.notEqual(await exportOf(server.store, copy.body.tenant.name), goldenBefore);
    assert.equal(await exportOf(server.store, 'golden'), goldenBefore);
    assert.deepEqual((await server.call('GET', '/v1/reporting?limit=100', { key: golden.key })).body.data, goldenPage.body.data);
  });

  test('a template with seed parameters is a 400, a template no tenant has a 404, a name taken a 409; nothing is made', async (t) => {
    const server = await startTestServer(t, { adminToken: TOKEN }, async (store) => {
      await buildFixture(store, { tenant: 'golden', records: 3 });
    });
    for (const extra of [{ users: 5 }, { records: 0 }, { seed: 'x' }]) {
      const both = await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: 'both', template: 'golden', ...extra } });
      assert.equal(both.status, 400, JSON.stringify(extra));
      assert.match(both.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal(both.body.errors[0].pointer, `/body/${Object.keys(extra)[0]}`);
    }
    const missing = await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: 'orphan', template: 'nobody' } });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.type, 'urn:compdata:problem:not-found');
    assert.match(missing.body.detail, /nobody/);
    assert.equal((await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { template: 'bad name!' } })).status, 400);
    for (const name of ['golden']) {
      const taken = await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name, template: 'golden' } });
      assert.equal(taken.status, 409);
    }
    for (const name of ['both', 'orphan']) assert.equal(await server.store.findTenant(name), undefined, name);
    const listed = await server.call('GET', '/admin/v1/tenants', { bearer: TOKEN });
    assert.deepEqual(listed.body.data.map((tenant: { name: string }) => tenant.name), ['golden']);
  });
});
