import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { OpenStoreOptions } from '../../src/store/openStore.js';
import { openSqliteEngine } from '../../src/store/sqlite/sqliteEngine.js';
import { storeOver } from '../../src/store/storeOver.js';
import { DEFAULT_WRITE_WAIT_MS } from '../../src/store/vocabulary/storeErrors.js';
import { exportOf } from '../support/datasets.js';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { onlyOn, startTestServer, type TestServer } from '../support/harness.js';
import { captureLogs } from '../support/logCapture.js';
import { until } from '../support/until.js';

/**
 * A sandbox's copy, reset and deletion that wait for a lock another connection holds never hold
 * up the event loop (on SQLite the administration's transactions run in a thread of their own,
 * src/store/sqlite/transactionThread.ts; on PostgreSQL the wait is the database's): another
 * tenant's pages and /healthz are answered meanwhile, and the operation then succeeds. A
 * transaction thread that dies costs its operation a 503 and nothing else.
 */
const TOKEN = 'admin-token-0123456789abcdef';

const tenantId = async (server: TestServer, name: string) => Number(await server.sql.value('SELECT id FROM tenants WHERE name = ?', name));

/** Each operation on the sandbox `copy` (made from the template `golden` before), with the tenant whose lock it waits for and its status once done. */
const OPERATIONS: [string, { method: string; path: string; json?: unknown; waitsFor: string; status: number }][] = [
  ['a copy of a template', { method: 'POST', path: '/admin/v1/sandboxes', json: { name: 'second', template: 'golden' }, waitsFor: 'golden', status: 201 }],
  ['a reset', { method: 'POST', path: '/admin/v1/tenants/copy/reset', waitsFor: 'copy', status: 204 }],
  ['a deletion', { method: 'DELETE', path: '/admin/v1/tenants/copy', waitsFor: 'copy', status: 204 }],
];

describe('administration writes beside reads', () => {
  test('while a copy, a reset or a deletion waits for a lock another connection holds, another tenant is read; each then succeeds (every answer as the contracts say)', async (t) => {
    let reader!: Fixture;
    const server = await startTestServer(t, { adminToken: TOKEN, busyTimeoutMs: 20_000 }, async (store) => {
      reader = await buildFixture(store, { tenant: 'reader', users: 3, records: 30 });
      await buildFixture(store, { tenant: 'golden', users: 5, records: 40, deals: 3 });
    });
    const made = await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: 'copy', template: 'golden' } });
    assert.equal(made.status, 201, made.text);

    for (const [name, { method, path, json, waitsFor, status }] of OPERATIONS) {
      const release = await server.sql.holdWriteLock(await tenantId(server, waitsFor));
      let settled = false;
      const operation = server.call(method, path, { bearer: TOKEN, ...(json !== undefined && { json }) }).finally(() => (settled = true));
      try {
        await until(`${name} is admitted (it then waits for the lock)`, () => server.requestsInProgress() === 1);
        for (let i = 0; i < 5; i += 1) {
          const health = await server.call('GET', '/healthz');
          assert.equal(health.status, 200, `${name}: /healthz`);
          const page = await server.call('GET', '/v1/reporting?limit=10', { key: reader.key });
          assert.equal(page.status, 200, `${name}: a page of another tenant`);
          assert.equal(page.body.count, 10);
        }
        assert.equal(settled, false, `${name} still waits for the lock while the reads were answered`);
      } finally {
        await release();
      }
      const answered = await operation;
      assert.equal(answered.status, status, `${name}: ${answered.text}`);
    }
    const tenants = await server.call('GET', '/admin/v1/tenants', { bearer: TOKEN });
    assert.deepEqual(tenants.body.data.map((tenant: { name: string }) => tenant.name), ['golden', 'reader', 'second']);
  });

  test('a transaction thread that dies before its commit: a 503, nothing made, and the next copy gets a new thread', { skip: onlyOn('sqlite') }, async (t) => {
    const logs = captureLogs('warn');
    const openServedStore = async (database: string, options: OpenStoreOptions) =>
      storeOver(openSqliteEngine(database, { role: 'server', busyTimeoutMs: DEFAULT_WRITE_WAIT_MS, log: options.log!, transactionThreadExitsAtFirstCommit: true }));
    const server = await startTestServer(t, { adminToken: TOKEN, openServedStore, logger: logs.logger }, async (store) => {
      await buildFixture(store, { tenant: 'golden', users: 5, records: 40, deals: 3 });
    });
    const sandboxes = { bearer: TOKEN, json: { name: 'copy', template: 'golden' } };
    const lost = await server.call('POST', '/admin/v1/sandboxes', sandboxes);
    assert.equal(lost.status, 503, lost.text);
    assert.equal(await server.sql.value('SELECT count(*) FROM tenants'), 1, 'neither the copy nor its origin was made');
    assert.ok(logs.entries().some((entry) => entry.level === 'error' && /transaction thread stopped/.test(entry.msg)), 'the death is logged');

    const made = await server.call('POST', '/admin/v1/sandboxes', sandboxes);
    assert.equal(made.status, 201, made.text);
    assert.equal(await exportOf(server.store, 'copy'), await exportOf(server.store, 'golden'));
  });
});
