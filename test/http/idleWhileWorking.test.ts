import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildFixture } from '../support/fixture.js';
import { startTestServer } from '../support/harness.js';
import { captureLogs } from '../support/logCapture.js';
import { until } from '../support/until.js';

/**
 * The idle timeout closes a connection whose client stops sending or reading, never one whose
 * request the server is still working on: a reset that waits for its tenant's lock past the idle
 * timeout is answered once the lock is let go, on the connection it came on.
 */
const TOKEN = 'admin-token-0123456789abcdef';

test('a request worked on past the idle timeout keeps its connection and gets its answer', async (t) => {
  const logs = captureLogs('debug');
  const server = await startTestServer(t, { adminToken: TOKEN, busyTimeoutMs: 30_000, idleTimeoutMs: 200, logger: logs.logger }, async (store) => {
    await buildFixture(store, { tenant: 'golden', users: 2, records: 5 });
  });
  const made = await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: 'copy', template: 'golden' } });
  assert.equal(made.status, 201, made.text);
  const tenantId = Number(await server.sql.value('SELECT id FROM tenants WHERE name = ?', 'copy'));
  const release = await server.sql.holdWriteLock(tenantId);
  const reset = server.call('POST', '/admin/v1/tenants/copy/reset', { bearer: TOKEN });
  try {
    // Twice past the idle timeout while the reset waits: the connection is kept each time.
    await until('the idle timeout passed twice during the reset', () => logs.entries().filter((entry) => entry.msg === 'connection idle while its request is worked on: kept open for the answer').length >= 2);
  } finally {
    await release();
  }
  const answered = await reset;
  assert.equal(answered.status, 204, answered.text);
});
