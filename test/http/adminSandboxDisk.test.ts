import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateSeed } from '../../src/dataset/generateSeed.js';
import { seedTenant } from '../../src/dataset/seedTenant.js';
import { exportOf } from '../support/datasets.js';
import { fixtureUser } from '../support/fixture.js';
import { startTestServer, TEST_ENGINE, type TestServer } from '../support/harness.js';
import { smallDiskSkip } from '../support/testDatabases.js';
import { until } from '../support/until.js';

/**
 * A full disk (as in fullDisk.test.ts: the database on a small file system of its own, filled
 * with ballast) during the administration API's writes: a sandbox generated, a sandbox copied
 * and a reset are each a 507, with nothing of them made (every tenant exports as before, no key,
 * recipe or kept answer left), and each succeeds once the room returns.
 */
const skip = await smallDiskSkip();
const DISK_MEGABYTES = TEST_ENGINE === 'sqlite' ? 48 : 96;
const TOKEN = 'admin-token-0123456789abcdef';

/** What a client and the database hold: every tenant's export, and the rows of the administration's own tables. */
async function everything(server: TestServer): Promise<unknown> {
  const tenants = await server.store.listTenants({ limit: 1000 });
  const exports = [];
  for (const { name } of tenants) exports.push([name, await exportOf(server.store, name)]);
  const rows = [];
  for (const table of ['tenants', 'api_keys', 'sandbox_recipes', 'sandbox_requests']) rows.push([table, Number(await server.sql.value(`SELECT count(*) FROM ${table}`))]);
  return { exports, rows };
}

describe('a full disk during a sandbox create or reset: a 507, nothing half-made', { skip }, () => {
  test('generated, copied, reset: each refused whole while the disk is full, each done once the room returns', async (t) => {
    const server = await startTestServer(
      t,
      { adminToken: TOKEN },
      async (store) => seedTenant(store, 'golden', generateSeed({ seed: 'disk', users: 100, records: 4000 })),
      { smallDiskMegabytes: DISK_MEGABYTES },
    );
    const create = (json: unknown, idempotencyKey: string) => server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json, headers: { 'Idempotency-Key': idempotencyKey } });
    const reset = () => server.call('POST', '/admin/v1/tenants/sb/reset', { bearer: TOKEN });
    const made = await create({ name: 'sb', users: 50, records: 1000, seed: 'sb' }, 'sb-1');
    assert.equal(made.status, 201, made.text);
    const created = await exportOf(server.store, 'sb');
    // A write after the create: a reset has something to undo.
    const write = await server.call('PUT', '/v1/users/bulk', { key: made.body.key.key, json: { data: [fixtureUser('sb', 9999)] } });
    assert.equal(write.status, 200, write.text);
    const before = await everything(server);

    // SQLite: the write-ahead log emptied into the database file, as a checkpoint leaves it, so
    // that a write needs the log to grow (else one smaller than an earlier one fits in it).
    // The server's checkpoint thread may be copying the log meanwhile: the truncation is tried
    // again until it was not kept from finishing (its first column, `busy`, is 0).
    if (TEST_ENGINE === 'sqlite') await until('the WAL is emptied', async () => (await server.sql.rows('PRAGMA wal_checkpoint(TRUNCATE)'))[0]![0] === 0);
    assert.ok(server.disk!.fill() > 0, 'the ballast took the room left');
    const attempts = [
      ['generated', () => create({ name: 'generated', users: 100, records: 3000 }, 'gen-1'), 201],
      ['copied', () => create({ name: 'copied', template: 'golden' }, 'copy-1'), 201],
      ['reset', reset, 204],
    ] as const;
    for (const [label, attempt] of attempts) {
      const refused = await attempt();
      assert.equal(refused.status, 507, `${label}: ${refused.text}`);
      assert.equal(refused.body.type, 'urn:compdata:problem:insufficient-storage');
      assert.deepEqual(await everything(server), before, `${label}: nothing of it is left`);
    }

    server.disk!.free();
    for (const [label, attempt, status] of attempts) {
      // SQLite: the room includes what a checkpoint gives back; the server's checkpoint thread
      // may lag behind the copies on a loaded machine, so the log is emptied as it would.
      if (TEST_ENGINE === 'sqlite') await until('the WAL is emptied', async () => (await server.sql.rows('PRAGMA wal_checkpoint(TRUNCATE)'))[0]![0] === 0);
      const done = await attempt();
      assert.equal(done.status, status, `${label}: ${done.text}`);
      assert.equal(done.headers.get('Idempotent-Replayed'), null, `${label}: the refused create was not remembered`);
    }
    assert.equal(await exportOf(server.store, 'sb'), created);
    assert.equal(await exportOf(server.store, 'copied'), await exportOf(server.store, 'golden'));
    assert.deepEqual(await server.store.check(), []);
  });
});

