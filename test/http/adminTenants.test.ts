import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { exportOf } from '../support/datasets.js';
import { buildFixture, fixtureUser, type Fixture } from '../support/fixture.js';
import { startTestServer, TEST_ENGINE, type TestServer } from '../support/harness.js';

const TOKEN = 'admin-token-0123456789abcdef';

/** Every table's number of rows, by name: what a tenant deleted whole leaves as it found it. */
async function rowCounts(server: TestServer): Promise<Record<string, number>> {
  const tables =
    TEST_ENGINE === 'sqlite'
      ? await server.sql.rows(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
      : await server.sql.rows(`SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`);
  const counts: Record<string, number> = {};
  for (const [name] of tables) counts[String(name)] = Number(await server.sql.value(`SELECT count(*) FROM ${String(name)}`));
  return counts;
}

describe('tenants over the administration API', () => {
  test('GET /admin/v1/tenants: every tenant by name with its creation time and sizes, paged by limit and next', async (t) => {
    const server = await startTestServer(t, { adminToken: TOKEN }, async (store) => {
      await buildFixture(store, { tenant: 'acme', users: 3, records: 5, deals: 4 });
      await buildFixture(store, { tenant: 'beta', users: 2, records: 0, deals: 0 });
      await store.createKey('keys-only');
    });
    const stored = String(await server.sql.value('SELECT created_at FROM tenants WHERE name = ?', 'acme'));
    const all = await server.call('GET', '/admin/v1/tenants', { bearer: TOKEN });
    assert.equal(all.status, 200);
    assert.equal(all.body.count, 3);
    assert.equal(all.body.next, undefined);
    assert.deepEqual(all.body.data, [
      { name: 'acme', created_at: stored, users: 3, reporting_records: 5, table_records: 4, expires_at: null },
      { name: 'beta', created_at: all.body.data[1].created_at, users: 2, reporting_records: 0, table_records: 0, expires_at: null },
      { name: 'keys-only', created_at: all.body.data[2].created_at, users: 0, reporting_records: 0, table_records: 0, expires_at: null },
    ]);

    const names: string[] = [];
    let next: string | undefined = '/admin/v1/tenants?limit=2';
    while (next !== undefined) {
      const page = await server.call('GET', next.replace(server.url, ''), { bearer: TOKEN });
      assert.equal(page.status, 200);
      assert.ok(page.body.count <= 2);
      names.push(...page.body.data.map((tenant: { name: string }) => tenant.name));
      next = page.body.next;
    }
    assert.deepEqual(names, ['acme', 'beta', 'keys-only']);
    const lastPage = await server.call('GET', '/admin/v1/tenants?limit=2&after=beta', { bearer: TOKEN });
    assert.deepEqual(lastPage.body.data.map((tenant: { name: string }) => tenant.name), ['keys-only']);
    assert.equal(lastPage.body.next, undefined);
    assert.equal((await server.call('GET', '/admin/v1/tenants?limit=0', { bearer: TOKEN })).status, 400);
    assert.equal((await server.call('GET', '/admin/v1/tenants?limit=1001', { bearer: TOKEN })).status, 400);
    assert.equal((await server.call('GET', '/admin/v1/tenants')).status, 401);
  });

  test('DELETE /admin/v1/tenants/{name}: the tenant, its keys and all its data go; another tenant is untouched; the name starts empty again', async (t) => {
    let acme!: Fixture;
    const server = await startTestServer(t, { adminToken: TOKEN }, async (store) => {
      acme = await buildFixture(store, { tenant: 'acme', records: 12, deals: 5 });
    });
    const acmeBefore = await exportOf(server.store, 'acme');
    const countsBefore = await rowCounts(server);
    const sandbox = await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: 'doomed', users: 8, records: 40 } });
    assert.equal(sandbox.status, 201);
    const readKey = await server.call('POST', '/admin/v1/tenants/doomed/keys', { bearer: TOKEN, json: { scope: 'read' } });
    const doomedKeys = [sandbox.body.key.key, readKey.body.key];
    for (const key of doomedKeys) assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key })).status, 200);
    // A write of the tenant, so that its change stamps and idempotency keys are there to go too.
    const write = await server.call('PUT', '/v1/users/bulk', {
      key: sandbox.body.key.key,
      headers: { 'Idempotency-Key': 'doomed-write-1' },
      json: { data: [fixtureUser('doomed', 99)] },
    });
    assert.equal(write.status, 200, write.text);

    const deleted = await server.call('DELETE', '/admin/v1/tenants/doomed', { bearer: TOKEN });
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, '');
    assert.deepEqual(await rowCounts(server), countsBefore);
    assert.equal(await exportOf(server.store, 'acme'), acmeBefore);
    for (const key of doomedKeys) assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key })).status, 401);
    assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key: acme.key })).status, 200);
    assert.equal(await exportOf(server.store, 'doomed'), undefined);
    assert.equal(await server.store.findTenant('doomed'), undefined);

    const again = await server.call('DELETE', '/admin/v1/tenants/doomed', { bearer: TOKEN });
    assert.equal(again.status, 404);
    assert.equal(again.body.type, 'urn:compdata:problem:not-found');

    const remade = await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: 'doomed', records: 0 } });
    assert.equal(remade.status, 201);
    const listed = await server.call('GET', '/admin/v1/tenants', { bearer: TOKEN });
    const doomed = listed.body.data.find((tenant: { name: string }) => tenant.name === 'doomed');
    assert.equal(doomed.reporting_records, 0);
    const remadeKeys = await server.call('GET', '/admin/v1/tenants/doomed/keys', { bearer: TOKEN });
    assert.deepEqual(remadeKeys.body.data.map((key: { id: string }) => key.id), [remade.body.key.id]);
    const page = await server.call('GET', '/v1/reporting?limit=0', { key: remade.body.key.key });
    assert.equal(page.body.count, 0);
    for (const key of doomedKeys) assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key })).status, 401);
    assert.equal(await exportOf(server.store, 'acme'), acmeBefore);
  });

  test('a deleted tenant\'s id is never given again: a new tenant gets another, and a sync token of the deleted one is no token for it', async (t) => {
    const server = await startTestServer(t, { adminToken: TOKEN });
    const idOf = async (name: string) => Number(await server.sql.value('SELECT id FROM tenants WHERE name = ?', name));
    const first = await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: 'first', records: 0 } });
    const doomed = await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: 'doomed', users: 2, records: 3 } });
    assert.equal(first.status, 201);
    assert.equal(doomed.status, 201);
    const firstId = await idOf('first');
    const doomedId = await idOf('doomed');
    assert.ok(doomedId > firstId, 'the newest tenant has the highest id: deleting it frees the id a new one would take');
    const sync = await server.call('GET', '/v1/reporting?changed_since=0&limit=1000', { key: doomed.body.key.key });
    assert.equal(sync.status, 200);
    const token = sync.body.sync_token as string;
    assert.ok(token);

    assert.equal((await server.call('DELETE', '/admin/v1/tenants/doomed', { bearer: TOKEN })).status, 204);
    const next = await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: 'next', users: 2, records: 3 } });
    assert.equal(next.status, 201);
    const nextId = await idOf('next');
    assert.notEqual(nextId, doomedId);
    assert.ok(nextId > doomedId);
    assert.equal((await server.store.findTenant('next'))?.id, nextId);

    const refused = await server.call('GET', `/v1/reporting?changed_since=${encodeURIComponent(token)}`, { key: next.body.key.key });
    assert.equal(refused.status, 400, refused.text);
    // The same name made again gets a new id too.
    assert.equal((await server.call('DELETE', '/admin/v1/tenants/next', { bearer: TOKEN })).status, 204);
    assert.equal((await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: 'next', records: 0 } })).status, 201);
    assert.ok((await idOf('next')) > nextId);
  });

  test('keys: created for an existing tenant only, listed without secrets, revoked by id; the same keys as compdata keys', async (t) => {
    const server = await startTestServer(t, { adminToken: TOKEN }, async (store) => {
      await buildFixture(store, { tenant: 'acme', records: 2 });
    });
    const unknown = await server.call('POST', '/admin/v1/tenants/nobody/keys', { bearer: TOKEN, json: { scope: 'write' } });
    assert.equal(unknown.status, 404);
    assert.equal(await server.store.findTenant('nobody'), undefined, 'no tenant made implicitly');
    assert.equal((await server.call('GET', '/admin/v1/tenants/nobody/keys', { bearer: TOKEN })).status, 404);

    const read = await server.call('POST', '/admin/v1/tenants/acme/keys', { bearer: TOKEN, json: { scope: 'read' } });
    assert.equal(read.status, 201);
    assert.equal(read.body.scope, 'read');
    const write = await server.call('POST', '/admin/v1/tenants/acme/keys', { bearer: TOKEN });
    assert.equal(write.status, 201);
    assert.equal(write.body.scope, 'write');
    assert.equal((await server.call('GET', '/v1/reporting', { key: read.body.key })).status, 200);
    const refused = await server.call('PUT', '/v1/users/bulk', { key: read.body.key, json: { data: [] } });
    assert.equal(refused.status, 403);
    assert.equal((await server.call('POST', '/admin/v1/tenants/acme/keys', { bearer: TOKEN, json: { scope: 'admin' } })).status, 400);

    const listed = await server.call('GET', '/admin/v1/tenants/acme/keys', { bearer: TOKEN });
    assert.equal(listed.status, 200);
    const cliList = await server.store.listKeys('acme');
    assert.deepEqual(listed.body.data, cliList.map(({ id, created_at, state, scope }) => ({ id, created_at, state, scope })));
    assert.ok([read.body.id, write.body.id].every((id) => cliList.some((key) => key.id === id)));
    assert.ok(!listed.text.includes(read.body.key) && !listed.text.includes('cdk_'));

    const revoked = await server.call('DELETE', `/admin/v1/keys/${read.body.id}`, { bearer: TOKEN });
    assert.equal(revoked.status, 204);
    assert.equal((await server.call('GET', '/v1/reporting', { key: read.body.key })).status, 401);
    assert.equal((await server.call('GET', '/v1/reporting', { key: write.body.key })).status, 200);
    const state = (await server.call('GET', '/admin/v1/tenants/acme/keys', { bearer: TOKEN })).body.data.find((key: { id: string }) => key.id === read.body.id);
    assert.equal(state.state, 'revoked');
    for (const id of [read.body.id, '000000000000']) {
      const missing = await server.call('DELETE', `/admin/v1/keys/${id}`, { bearer: TOKEN });
      assert.equal(missing.status, 404, id);
    }
    assert.equal((await server.call('DELETE', `/admin/v1/keys/${write.body.key}`, { bearer: TOKEN })).status, 400, 'a whole key is no id');
  });
});
