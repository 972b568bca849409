import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { OpenStoreOptions } from '../../src/store/openStore.js';
import { storeOver } from '../../src/store/storeOver.js';
import { openSqliteEngine } from '../../src/store/sqlite/sqliteEngine.js';
import { DEFAULT_WRITE_WAIT_MS } from '../../src/store/vocabulary/storeErrors.js';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { onlyOn, startTestServer, type TestServer } from '../support/harness.js';
import { captureLogs } from '../support/logCapture.js';
import { until } from '../support/until.js';

/**
 * A bulk PUT that waits for another connection's write lock never holds up the event loop (on
 * SQLite writes run in a thread of their own, src/store/sqlite/writer.ts; on PostgreSQL the wait
 * is the database's), and a writer thread that dies costs its write a 503 and nothing else.
 */
async function serve(t: Parameters<typeof startTestServer>[0], options: Parameters<typeof startTestServer>[1] = {}) {
  let fixture!: Fixture;
  const server = await startTestServer(t, options, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme' });
  });
  return { server, key: fixture.key, tenantId: fixture.tenantId };
}

const ITEM = { user: 'user1@acme.example', group_dimension: 'region', group: 'LATAM', start_date: '2026-01', end_date: null };

const groupsOfUser1 = async (server: TestServer, key: string) =>
  (await server.call('GET', '/v1/users/groups?user=user1@acme.example', { key })).body.data;

describe('writes off the event loop', () => {
  test('while a PUT waits for a lock another connection holds, reads and /healthz are answered; the PUT then succeeds', async (t) => {
    const { server, key, tenantId } = await serve(t, { busyTimeoutMs: 20_000 });
    const release = await server.sql.holdWriteLock(tenantId); // another writer holds the database
    t.after(release);
    let putSettled = false;
    const put = server.call('PUT', '/v1/users/groups/bulk', { key, json: { data: [ITEM] } }).finally(() => (putSettled = true));
    await until('the PUT is admitted (it then waits for the lock)', () => server.requestsInProgress() === 1);

    for (let i = 0; i < 5; i += 1) {
      const health = await server.call('GET', '/healthz');
      assert.deepEqual([health.status, health.body], [200, { status: 'ok' }]);
      const page = await server.call('GET', '/v1/reporting?limit=100', { key });
      assert.equal(page.status, 200);
      assert.equal(page.body.count, 25);
    }
    assert.equal(putSettled, false, 'the PUT is still waiting for the lock while the reads were answered');
    assert.deepEqual(await groupsOfUser1(server, key), [], 'nothing of the waiting PUT is visible');

    await release();
    const answered = await put;
    assert.equal(answered.status, 200, answered.text);
    assert.deepEqual(await groupsOfUser1(server, key), [ITEM]);
  });

  // Each write waits for the lock until its own deadline: refused together, about one busy
  // timeout after they were sent. Queued one after another, each would wait its timeout in
  // turn, and the last would be refused five timeouts after the first.
  test('writes queued behind a held lock each wait their own busy timeout, not one after another', async (t) => {
    const busyTimeoutMs = 3_000;
    const { server, key, tenantId } = await serve(t, { busyTimeoutMs });
    const release = await server.sql.holdWriteLock(tenantId);
    t.after(release);
    const answeredAt: number[] = [];
    const puts = Array.from({ length: 6 }, () =>
      server.call('PUT', '/v1/users/groups/bulk', { key, json: { data: [ITEM] } }).finally(() => answeredAt.push(Date.now())),
    );
    const refused = await Promise.all(puts);
    assert.deepEqual(refused.map((response) => response.status), Array(6).fill(503));
    for (const response of refused) assert.equal(response.headers.get('retry-after'), '1');
    const spread = Math.max(...answeredAt) - Math.min(...answeredAt);
    assert.ok(spread < 2 * busyTimeoutMs, `the refusals came ${spread} ms apart, not a timeout after one another`);
    await release();
  });

  test('a writer thread that dies inside its transaction: a 503, nothing written, and the next write gets a new writer', { skip: onlyOn('sqlite') }, async (t) => {
    const logs = captureLogs('warn');
    // A store over an engine whose first writer thread exits inside its first transaction.
    const openServedStore = async (database: string, options: OpenStoreOptions) =>
      storeOver(openSqliteEngine(database, { role: 'server', busyTimeoutMs: DEFAULT_WRITE_WAIT_MS, log: options.log!, writerExitsInFirstTransaction: true }));
    const { server, key } = await serve(t, { openServedStore, logger: logs.logger });
    const lost = await server.call('PUT', '/v1/users/groups/bulk', { key, json: { data: [ITEM] } });
    assert.equal(lost.status, 503, lost.text);
    assert.equal(lost.headers.get('retry-after'), '1');
    assert.deepEqual(await groupsOfUser1(server, key), [], 'the transaction died with the thread');
    const regions = (await server.call('GET', '/v1/reporting?limit=25', { key })).body.data.map((record: { region: string[] }) => record.region);
    assert.ok(regions.every((region: string[]) => !region.includes('LATAM')), 'no dimension field was re-rendered either');
    assert.ok(logs.entries().some((entry) => entry.level === 'error' && /writer thread stopped/.test(entry.msg)), 'the death is logged');

    const written = await server.call('PUT', '/v1/users/groups/bulk', { key, json: { data: [ITEM] } });
    assert.equal(written.status, 200, written.text);
    assert.deepEqual(await groupsOfUser1(server, key), [ITEM]);
  });
});
