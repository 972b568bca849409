import assert from 'node:assert/strict';
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { samplesOf, seriesKey } from '../support/prometheusText.js';

/** `serve --metrics`: `GET /metrics`, parsed; counters read before and after requests. */
async function scrape(server: TestServer): Promise<Map<string, number>> {
  const answer = await server.call('GET', '/metrics');
  assert.equal(answer.status, 200, answer.text);
  assert.match(answer.headers.get('Content-Type')!, /^text\/plain; version=0\.0\.4/);
  return samplesOf(answer.text);
}

/** How long the test holds the write lock while a PUT waits for it. */
const HELD_MS = 1000;

const value = (samples: Map<string, number>, name: string, labels: Record<string, string> = {}) => samples.get(seriesKey(name, labels)) ?? 0;

describe('GET /metrics', () => {
  test('off unless asked for: a 404 like any unknown path', async (t) => {
    const server = await startTestServer(t);
    const answer = await server.call('GET', '/metrics');
    assert.equal(answer.status, 404);
    assert.equal(answer.body.type, 'urn:compdata:problem:not-found');
  });

  test('requests by operation and status, durations, records served, database size and the process', async (t) => {
    let fixture!: Fixture;
    const server = await startTestServer(t, { metrics: true }, async (store) => {
      fixture = await buildFixture(store, { tenant: 'acme', records: 10 });
    });
    const before = await scrape(server);
    for (const limit of [3, 4]) assert.equal((await server.call('GET', `/v1/reporting?limit=${limit}`, { key: fixture.key })).status, 200);
    assert.equal((await server.call('GET', '/v1/reporting?limit=0', { key: fixture.key })).status, 200);
    assert.equal((await server.call('GET', '/v1/reporting')).status, 401);
    assert.equal((await server.call('GET', '/v1/tables/deals/records?limit=2', { key: fixture.key })).status, 200);
    assert.equal((await server.call('GET', '/nowhere')).status, 404);
    const item = { user: 'user1@acme.example', group_dimension: 'region', group: 'LATAM', start_date: '2026-01' };
    assert.equal((await server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data: [item] } })).status, 200);
    const after = await scrape(server);

    const moved = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels);
    const requests = 'compdata_http_requests_total';
    assert.equal(moved(requests, { operation: 'getReportingRecords', status: '200' }), 3);
    assert.equal(moved(requests, { operation: 'getReportingRecords', status: '401' }), 1);
    assert.equal(moved(requests, { operation: 'getTableRecords', status: '200' }), 1);
    assert.equal(moved(requests, { operation: 'upsertGroupsBulk', status: '200' }), 1);
    assert.equal(moved(requests, { operation: 'none', status: '404' }), 1, 'a request that matched no operation');
    assert.equal(moved(requests, { operation: 'getMetrics', status: '200' }), 1, 'the scrape before');
    assert.equal(moved('compdata_http_request_duration_seconds_count', { operation: 'getReportingRecords' }), 4);
    assert.equal(moved('compdata_http_request_duration_seconds_bucket', { operation: 'getReportingRecords', le: '+Inf' }), 4);
    assert.ok(moved('compdata_http_request_duration_seconds_sum', { operation: 'upsertGroupsBulk' }) > 0);
    assert.equal(moved('compdata_records_served_total', { operation: 'getReportingRecords' }), 7, 'the records of the two pages; a count serves none');
    assert.equal(moved('compdata_records_served_total', { operation: 'getTableRecords' }), 2);
    assert.ok(value(after, 'compdata_database_size_bytes') > 4096, 'the database has a size');
    assert.ok(value(after, 'process_resident_memory_bytes') > 0);
    assert.ok(value(after, 'process_open_fds') > 0);
  });

  test('a page large enough to be streamed, with every per-request feature on, draws no warning from Node', async (t) => {
    let fixture!: Fixture;
    const server = await startTestServer(t, { metrics: true }, async (store) => {
      fixture = await buildFixture(store, { tenant: 'acme', records: 1000 });
    });
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    t.after(() => void process.off('warning', onWarning));
    for (let i = 0; i < 3; i += 1) {
      const page = await server.call('GET', '/v1/reporting?limit=1000', { key: fixture.key });
      assert.equal(page.status, 200);
      assert.ok(page.text.length > 256 * 1024, 'the page is sent in chunks (a stream)');
    }
    // Node emits 'warning' on a later tick than the listener that crossed its bound.
    await setImmediate();
    assert.deepEqual(warnings.map((warning) => `${warning.name}: ${warning.message}`), []);
  });

  test("a write's wait for the write lock is measured, from its arrival until its transaction holds the lock", async (t) => {
    let fixture!: Fixture;
    const server = await startTestServer(t, { metrics: true }, async (store) => {
      fixture = await buildFixture(store, { tenant: 'acme', records: 2 });
    });
    const put = (group: string) =>
      server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data: [{ user: 'user1@acme.example', group_dimension: 'region', group, start_date: '2026-01' }] } });
    const wait = 'compdata_write_lock_wait_seconds';
    const before = await scrape(server);
    assert.equal((await put('LATAM')).status, 200);
    const release = await server.sql.holdWriteLock(fixture.tenantId);
    t.after(release);
    const held = put('EMEA');
    await sleep(HELD_MS);
    await release();
    assert.equal((await held).status, 200);
    const after = await scrape(server);

    const moved = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels);
    assert.equal(moved(`${wait}_count`), 2, 'each write that got the lock');
    // The wait counts from the PUT's arrival at the store, a little after the hold's timer began:
    // at least half the hold, however slowly the PUT arrived on a busy machine.
    assert.ok(moved(`${wait}_sum`) >= HELD_MS / 2000, `the second write waited while the lock was held: ${moved(`${wait}_sum`)} s`);
    assert.ok(moved(`${wait}_bucket`, { le: '0.25' }) <= 1, 'the write behind the held lock is past 0.25 s');
  });

  test('a write refused because another writer held the lock is counted', async (t) => {
    let fixture!: Fixture;
    const server = await startTestServer(t, { metrics: true, busyTimeoutMs: 100 }, async (store) => {
      fixture = await buildFixture(store, { tenant: 'acme', records: 2 });
    });
    const before = value(await scrape(server), 'compdata_write_lock_timeouts_total');
    const release = await server.sql.holdWriteLock(fixture.tenantId);
    t.after(release);
    const item = { user: 'user1@acme.example', group_dimension: 'region', group: 'LATAM', start_date: '2026-01' };
    assert.equal((await server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data: [item] } })).status, 503);
    await release();
    assert.equal((await server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data: [item] } })).status, 200);
    const after = await scrape(server);
    assert.equal(value(after, 'compdata_write_lock_timeouts_total') - before, 1);
    assert.equal(value(after, 'compdata_http_requests_total', { operation: 'upsertGroupsBulk', status: '503' }), 1);
  });
});
