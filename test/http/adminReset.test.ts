import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { exportOf } from '../support/datasets.js';
import { buildFixture, fixtureUser } from '../support/fixture.js';
import { startTestServer, type TestServer } from '../support/harness.js';

const TOKEN = 'admin-token-0123456789abcdef';

/** Writes to the sandbox through the public API: a user added under an idempotency key. */
const addUser = (server: TestServer, key: string, i: number, idempotencyKey: string) =>
  server.call('PUT', '/v1/users/bulk', { key, headers: { 'Idempotency-Key': idempotencyKey }, json: { data: [fixtureUser('sb', i)] } });

describe('POST /admin/v1/tenants/{name}/reset', () => {
  test('a generated sandbox and a copy go back to their created state; keys work, old sync tokens are 410, idempotency keys are fresh', async (t) => {
    const server = await startTestServer(t, { adminToken: TOKEN }, async (store) => {
      await buildFixture(store, { tenant: 'golden', users: 4, records: 20, deals: 5 });
    });
    const seeded = await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: 'seeded', users: 10, records: 60, seed: 5 } });
    const copied = await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: 'copied', template: 'golden' } });
    assert.equal(seeded.status, 201);
    assert.equal(copied.status, 201);
    // The template changes after the copy: the copy's reset goes back to what was copied.
    const goldenKey = (await server.call('POST', '/admin/v1/tenants/golden/keys', { bearer: TOKEN })).body.key as string;
    assert.equal((await addUser(server, goldenKey, 50, 'golden-1')).status, 200);

    for (const [name, key] of [['seeded', seeded.body.key.key as string], ['copied', copied.body.key.key as string]] as const) {
      const created = await exportOf(server.store, name);
      const sync = await server.call('GET', '/v1/reporting?changed_since=0&limit=1000', { key });
      assert.equal(sync.status, 200);
      assert.ok(sync.body.sync_token, name);
      assert.equal((await addUser(server, key, 90, 'write-1')).status, 200);
      assert.notEqual(await exportOf(server.store, name), created);

      const reset = await server.call('POST', `/admin/v1/tenants/${name}/reset`, { bearer: TOKEN });
      assert.equal(reset.status, 204, reset.text);
      assert.equal(await exportOf(server.store, name), created, name);
      const gone = await server.call('GET', `/v1/reporting?changed_since=${encodeURIComponent(sync.body.sync_token)}`, { key });
      assert.equal(gone.status, 410, name);
      assert.equal(gone.body.type, 'urn:compdata:problem:sync-expired');
      assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key })).status, 200, 'the key still works');
      // The same idempotency key again is a fresh request: it writes.
      assert.equal((await addUser(server, key, 90, 'write-1')).status, 200);
      assert.notEqual(await exportOf(server.store, name), created, `${name}: the reused key wrote again`);
      assert.equal((await server.call('POST', `/admin/v1/tenants/${name}/reset`, { bearer: TOKEN })).status, 204);
      assert.equal(await exportOf(server.store, name), created);
    }
    const keys = await server.call('GET', '/admin/v1/tenants/copied/keys', { bearer: TOKEN });
    assert.deepEqual(keys.body.data.map((key: { id: string }) => key.id), [copied.body.key.id]);
  });

  test('a reset drops the imports still scheduled: the import is gone, the table holds its created records, and nothing of it runs later', async (t) => {
    const server = await startTestServer(t, { adminToken: TOKEN }, async (store) => {
      await buildFixture(store, { tenant: 'golden', users: 3, records: 4, deals: 5 });
    });
    const copied = await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: 'sb', template: 'golden' } });
    assert.equal(copied.status, 201);
    const key = copied.body.key.key as string;
    const created = await exportOf(server.store, 'sb');
    const records = async () => (await server.call('GET', '/v1/tables/deals/records?limit=100', { key })).body.data;
    const createdRecords = await records();
    assert.equal(createdRecords.length, 5);

    // A long debounce: the import stays scheduled, its lines held in the database.
    const deal = (i: number) => ({ id: `sb-d${i}`, name: `Pushed ${i}`, owner_id: 'u0', amount: 1, amount_currency: 'USD' });
    const pushed = await server.call('POST', '/v1/tables/deals/records/bulk?debounce=3600&all=true', { key, json: { data: [deal(0), deal(99)] } });
    assert.equal(pushed.status, 202, pushed.text);
    const importId = pushed.body.import_id as string;
    const scheduled = await server.call('GET', `/v1/imports/${importId}`, { key });
    assert.equal(scheduled.status, 200);
    assert.equal(scheduled.body.data_import.status, 'scheduled');
    const importRows = async () => Number(await server.sql.value('SELECT count(*) FROM imports'));
    const lineRows = async () => Number(await server.sql.value('SELECT count(*) FROM import_lines'));
    assert.equal(await importRows(), 1);
    assert.ok((await lineRows()) > 0);

    const reset = await server.call('POST', '/admin/v1/tenants/sb/reset', { bearer: TOKEN });
    assert.equal(reset.status, 204, reset.text);
    const gone = await server.call('GET', `/v1/imports/${importId}`, { key });
    assert.equal(gone.status, 404, gone.text);
    assert.equal(await importRows(), 0, 'no import of the sandbox is left to run');
    assert.equal(await lineRows(), 0, 'nor its pushed lines');
    assert.deepEqual(await records(), createdRecords);
    assert.equal(await exportOf(server.store, 'sb'), created);

    // A push after the reset makes an import of its own, not one joined to the dropped import.
    const after = await server.call('POST', '/v1/tables/deals/records/bulk?debounce=3600', { key, json: { data: [deal(1)] } });
    assert.equal(after.status, 202, after.text);
    assert.notEqual(after.body.import_id, importId);
  });

  test('an unknown tenant is a 404; a tenant not made as a sandbox a 409, unchanged', async (t) => {
    const server = await startTestServer(t, { adminToken: TOKEN }, async (store) => {
      await buildFixture(store, { tenant: 'acme', records: 5 });
    });
    const before = await exportOf(server.store, 'acme');
    const unknown = await server.call('POST', '/admin/v1/tenants/nobody/reset', { bearer: TOKEN });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.type, 'urn:compdata:problem:not-found');
    const notSandbox = await server.call('POST', '/admin/v1/tenants/acme/reset', { bearer: TOKEN });
    assert.equal(notSandbox.status, 409);
    assert.equal(notSandbox.body.type, 'urn:compdata:problem:conflict');
    assert.equal(await exportOf(server.store, 'acme'), before);
    assert.equal((await server.call('POST', '/admin/v1/tenants/acme/reset')).status, 401);
    // A sandbox deleted takes its recipe along: the name made again by other means is no sandbox.
    assert.equal((await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: 'gone', records: 3 } })).status, 201);
    assert.equal((await server.call('DELETE', '/admin/v1/tenants/gone', { bearer: TOKEN })).status, 204);
    await server.store.createKey('gone');
    assert.equal((await server.call('POST', '/admin/v1/tenants/gone/reset', { bearer: TOKEN })).status, 409);
  });
});
