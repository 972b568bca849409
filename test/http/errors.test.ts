import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, test, type TestContext } from 'node:test';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { exchange, shared, startTestServer, type TestServer } from '../support/harness.js';
import { until } from '../support/until.js';

async function serve(t: Parameters<typeof startTestServer>[0], options = {}) {
  let fixture!: Fixture;
  const server = await startTestServer(t, options, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme' });
  });
  return { server, key: fixture.key, fixture };
}

/** The fixture's server for the tests of a `describe` that only read, without options of their own. */
const readOnlyServer = () => shared((scope) => serve(scope));

const PROBLEM_FIELDS = ['detail', 'status', 'title', 'type'];

describe('errors are problem+json with documented statuses', () => {
  const sharedServe = readOnlyServer();
  test('an unknown path is a 404 problem [conf:status-codes]', async () => {
    const { server, key } = await sharedServe();
    for (const path of ['/nope', '/v1', '/v1/reporting/extra', '/v2/reporting', '/v1/tables/deals']) {
      const response = await server.call('GET', path, { key });
      assert.equal(response.status, 404, path);
      assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.deepEqual(Object.keys(response.body).sort(), PROBLEM_FIELDS);
      assert.equal(response.body.status, 404);
    }
  });

  test('a method the path does not have is a 405 with Allow', async () => {
    const { server, key } = await sharedServe();
    const cases: [string, string, string][] = [
      ['POST', '/v1/reporting', 'GET, HEAD'],
      ['DELETE', '/v1/tables/deals/records', 'GET, HEAD'],
      ['GET', '/v1/users/groups/bulk', 'PUT'],
      ['PATCH', '/healthz', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const response = await server.call(method, path, { key });
      assert.equal(response.status, 405, `${method} ${path}`);
      assert.equal(response.headers.get('allow'), allow);
      assert.equal(response.body.status, 405);
    }
  });

  test('HEAD is answered wherever GET is, without a body', async () => {
    const { server, key } = await sharedServe();
    const response = await server.call('HEAD', '/v1/reporting?limit=3', { key });
    assert.equal(response.status, 200);
    assert.equal(response.text, '');
  });

  test('the bulk PUT refuses a non-JSON body (415), a too large body (413) and bad JSON (400)', async (t) => {
    const { server, key } = await serve(t, { bodyLimit: 1000 });
    const plain = await server.call('PUT', '/v1/users/groups/bulk', { key, raw: '{"data":[]}', headers: { 'Content-Type': 'text/plain' } });
    assert.equal(plain.status, 415);
    const missing = await server.call('PUT', '/v1/users/groups/bulk', { key, raw: '{"data":[]}' });
    assert.equal(missing.status, 415);
    const latin1 = await server.call('PUT', '/v1/users/groups/bulk', {
      key,
      raw: '{"data":[]}',
      headers: { 'Content-Type': 'application/json; charset=latin1' },
    });
    assert.equal(latin1.status, 415);
    const large = await server.call('PUT', '/v1/users/groups/bulk', { key, json: { data: [{ user: 'x'.repeat(2000) }] } });
    assert.equal(large.status, 413);
    const broken = await server.call('PUT', '/v1/users/groups/bulk', { key, raw: '{"data":[', headers: { 'Content-Type': 'application/json' } });
    assert.equal(broken.status, 400);
    assert.deepEqual(broken.body.errors, [{ pointer: '', message: 'is not valid JSON' }]);
  });

  test('without a key the bulk PUT is a 401 before its body is read', async (t) => {
    const { server } = await serve(t, { bodyLimit: 1000 });
    const response = await server.call('PUT', '/v1/users/groups/bulk', { json: { data: [{ user: 'x'.repeat(2000) }] } });
    assert.equal(response.status, 401);
  });

  test('malformed query shapes are 400s, never 500s', async () => {
    const { server, key } = await sharedServe();
    for (const query of ['offset[a]=1', 'limit[]=1', 'limit=%ZZ', 'offset=%00', 'limit=1%20', 'offset=0x10']) {
      const response = await server.call('GET', `/v1/reporting?${query}`, { key });
      assert.equal(response.status, 400, query);
      assert.ok(response.body.errors.length > 0, query);
    }
  });

  test('odd paths are 404s, never 500s', async () => {
    const { server, key } = await sharedServe();
    for (const path of ['/%', '/v1/reporting%', '/v1/%E0%A4%A', `/${'a'.repeat(5000)}`, '/v1/tables/%/records']) {
      const response = await server.call('GET', path, { key });
      assert.ok(response.status === 404 || response.status === 400, `${path}: ${response.status}`);
    }
  });

  /** Holds a slot: a PUT whose body never finishes arriving, on a socket of its own. */
  /** The server's one slot, held by a PUT whose body never ends: once the server has admitted it. */
  async function holdSlot(t: TestContext, server: TestServer, key: string) {
    const inProgress = server.requestsInProgress();
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    t.after(() => socket.destroy());
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(
      `PUT /v1/users/groups/bulk HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"da`,
    );
    await until('the PUT is admitted', () => server.requestsInProgress() > inProgress);
    return socket;
  }
  const slotGivenBack = (server: TestServer) => until('the slot is given back', () => server.requestsInProgress() === 0);

  test('past the concurrency limit, a request gets 503 with Retry-After', async (t) => {
    const { server, key } = await serve(t, { maxConcurrent: 1 });
    const socket = await holdSlot(t, server, key);
    const refused = await server.call('GET', '/v1/reporting?limit=1', { key });
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get('retry-after'), '1');
    socket.destroy();
    await slotGivenBack(server);
    const admitted = await server.call('GET', '/v1/reporting?limit=1', { key });
    assert.equal(admitted.status, 200);
  });

  test('past the concurrency limit, /healthz and /metrics still answer, and take no slot', async (t) => {
    const { server, key } = await serve(t, { maxConcurrent: 1, metrics: true });
    const socket = await holdSlot(t, server, key);
    assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key })).status, 503);
    assert.equal((await server.call('GET', '/healthz')).status, 200);
    assert.equal((await server.call('GET', '/metrics')).status, 200);
    assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key })).status, 503, 'the probes gave back no slot they did not take');
    socket.destroy(); // else the server's close waits for it until the shutdown timeout
    await slotGivenBack(server);
  });

  test('with a health port, the probes answer there while the API port refuses pages, and nothing else is served there', async (t) => {
    const { server, key } = await serve(t, { maxConcurrent: 1, metrics: true, healthPort: 0 });
    const socket = await holdSlot(t, server, key);
    assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key })).status, 503);
    const health = server.healthUrl!;
    assert.notEqual(health, server.url);
    assert.equal((await exchange(health, 'GET', '/healthz')).status, 200);
    assert.equal((await exchange(health, 'GET', '/metrics')).status, 200);
    assert.equal((await exchange(health, 'HEAD', '/healthz')).status, 200);
    assert.equal((await exchange(health, 'GET', '/no/such/path')).status, 404);
    // The API's operations are not served on the health port (the contract describes the API's
    // port): a 404 problem, not a page.
    const page = await fetch(`${health}/v1/reporting?limit=1`, { headers: { 'X-API-Key': key } });
    assert.equal(page.status, 404);
    assert.equal(((await page.json()) as { type: string }).type, 'urn:compdata:problem:not-found');
    assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key })).status, 503, 'the probes took no slot');
    socket.destroy();
    await slotGivenBack(server);
  });

  test('a request cut off mid-body gives back its one slot, not two', async (t) => {
    const { server, key } = await serve(t, { maxConcurrent: 1 });
    for (let cut = 0; cut < 3; cut += 1) {
      (await holdSlot(t, server, key)).destroy();
      await slotGivenBack(server);
    }
    const held = await holdSlot(t, server, key);
    const refused = await server.call('GET', '/v1/reporting?limit=1', { key });
    assert.equal(refused.status, 503, 'the limit still holds after slots were given back');
    held.destroy(); // else the server's close waits for it until the shutdown timeout
    await slotGivenBack(server);
  });
});

describe('a database held by another writer', () => {
  test('a write that cannot get the lock in time is a 503 with Retry-After, and nothing is written', async (t) => {
    const { server, key, fixture } = await serve(t, { busyTimeoutMs: 100 });
    const item = { user: 'user1@acme.example', group_dimension: 'region', group: 'LATAM', start_date: '2026-01' };
    const release = await server.sql.holdWriteLock(fixture.tenantId);
    t.after(release);
    const refused = await server.call('PUT', '/v1/users/groups/bulk', { key, json: { data: [item] } });
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get('retry-after'), '1');
    const readWhileLocked = await server.call('GET', '/v1/reporting?limit=1', { key });
    assert.equal(readWhileLocked.status, 200, 'reads go on while another process writes');
    await release();
    const groups = await server.call('GET', '/v1/users/groups?user=user1@acme.example', { key });
    assert.deepEqual(groups.body.data, [], 'the refused write left nothing');
    const accepted = await server.call('PUT', '/v1/users/groups/bulk', { key, json: { data: [item] } });
    assert.equal(accepted.status, 200);
  });
});

describe('service endpoints', () => {
  const sharedServe = readOnlyServer();
  test('GET /openapi.json serves the contract without a key, with the offset bound exact', async () => {
    const { server } = await sharedServe();
    const response = await server.call('GET', '/openapi.json');
    assert.equal(response.status, 200);
    assert.equal(response.body.openapi, '3.1.0');
    assert.match(response.text, /"maximum":9223372036854775807[,}]/);
  });

  test('GET /healthz answers without a key', async () => {
    const { server } = await sharedServe();
    const response = await server.call('GET', '/healthz');
    assert.deepEqual([response.status, response.body], [200, { status: 'ok' }]);
  });
});
