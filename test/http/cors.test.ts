import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { startTestServer, type TestServer } from '../support/harness.js';

const APP = 'https://app.example.com';
const preflight = (origin: string, method = 'PUT') => ({
  headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'x-api-key,content-type' },
});

async function serverWith(t: Parameters<typeof startTestServer>[0], corsOrigins?: string[]): Promise<{ server: TestServer; fixture: Fixture }> {
  let fixture!: Fixture;
  const server = await startTestServer(t, corsOrigins ? { corsOrigins } : {}, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme' });
  });
  return { server, fixture };
}

test('CORS is off by default: no CORS header, and a preflight is a 405 like any OPTIONS', async (t) => {
  const { server, fixture } = await serverWith(t);
  const answer = await server.call('OPTIONS', '/v1/users/groups/bulk', preflight(APP));
  assert.equal(answer.status, 405);
  assert.equal(answer.headers.get('access-control-allow-origin'), null);
  const page = await server.call('GET', '/v1/reporting?limit=1', { key: fixture.key, headers: { Origin: APP } });
  assert.equal(page.status, 200);
  assert.equal(page.headers.get('access-control-allow-origin'), null);
});

test('--cors-origin ORIGIN (repeatable): preflights of those origins get 204, their answers the headers', async (t) => {
  const { server, fixture } = await serverWith(t, [APP, 'http://localhost:5173']);

  await t.test('a preflight of an allowed origin: 204 allowing X-API-Key and Content-Type', async () => {
    for (const origin of [APP, 'http://localhost:5173']) {
      const answer = await server.call('OPTIONS', '/v1/users/groups/bulk', preflight(origin));
      assert.equal(answer.status, 204);
      assert.equal(answer.headers.get('access-control-allow-origin'), origin);
      assert.deepEqual(answer.headers.get('access-control-allow-headers')!.split(','), ['X-API-Key', 'Content-Type', 'If-None-Match', 'X-Request-Id', 'Compdata-Consistency', 'Idempotency-Key']);
      assert.equal(answer.headers.get('access-control-allow-methods'), 'GET,HEAD,PUT,POST,DELETE');
      assert.match(answer.headers.get('vary')!, /Origin/);
    }
  });

  await t.test('answers to an allowed origin, problems included, carry the origin and expose X-Request-Id, Compdata-Fault and the read-your-writes headers', async () => {
    const page = await server.call('GET', '/v1/reporting?limit=1', { key: fixture.key, headers: { Origin: APP } });
    const refused = await server.call('GET', '/v1/reporting', { headers: { Origin: APP } });
    const written = await server.call('PUT', '/v1/users/groups/bulk', {
      key: fixture.key,
      headers: { Origin: APP },
      json: { data: [{ user: 'user1@acme.example', group_dimension: 'region', group: 'EMEA', start_date: '2026-01' }] },
    });
    for (const [answer, status] of [[page, 200], [refused, 401], [written, 200]] as const) {
      assert.equal(answer.status, status);
      assert.equal(answer.headers.get('access-control-allow-origin'), APP);
      const exposed = answer.headers.get('access-control-expose-headers')!.split(',');
      for (const name of ['X-Request-Id', 'Compdata-Fault', 'Compdata-Consistency', 'Compdata-Served-By', 'Idempotent-Replayed']) assert.ok(exposed.includes(name), `${name} is not in ${exposed.join(',')}`);
    }
  });

  await t.test('another origin gets no CORS header, and its preflight is a 405', async () => {
    const answer = await server.call('OPTIONS', '/v1/reporting', preflight('https://evil.example', 'GET'));
    assert.equal(answer.status, 405);
    assert.equal(answer.headers.get('access-control-allow-origin'), null);
    const page = await server.call('GET', '/v1/reporting?limit=1', { key: fixture.key, headers: { Origin: 'https://evil.example' } });
    assert.equal(page.headers.get('access-control-allow-origin'), null);
  });
});

test('--cors-origin "*": any origin, answered with *', async (t) => {
  const { server, fixture } = await serverWith(t, ['*']);
  const answer = await server.call('OPTIONS', '/v1/reporting', preflight('https://anywhere.example', 'GET'));
  assert.equal(answer.status, 204);
  assert.equal(answer.headers.get('access-control-allow-origin'), '*');
  const page = await server.call('GET', '/v1/reporting?limit=1', { key: fixture.key, headers: { Origin: 'https://anywhere.example' } });
  assert.equal(page.headers.get('access-control-allow-origin'), '*');
});
