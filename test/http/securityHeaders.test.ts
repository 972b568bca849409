import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertConforms } from '../support/contract.js';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { startTestServer } from '../support/harness.js';
import { rawExchange } from '../support/rawHttp.js';

/** What every answer carries, and what none does (a header naming the software serving it). */
function assertSafeHeaders(what: string, headers: Headers): void {
  assert.equal(headers.get('x-content-type-options'), 'nosniff', `${what}: nosniff`);
  assert.equal(headers.get('x-powered-by'), null, `${what}: no X-Powered-By`);
  const server = headers.get('server');
  assert.ok(server === null || !/node|koa|compdata|express/i.test(server), `${what}: Server names no software (${server})`);
}

test('every kind of answer carries nosniff and names no software; /docs has its policy', async (t) => {
  let fixture!: Fixture;
  const server = await startTestServer(t, { metrics: true }, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme', records: 3 });
  });
  const key = fixture.key;
  const page = await server.call('GET', '/v1/reporting?limit=1', { key });
  assert.equal(page.status, 200);
  const notModified = await server.call('GET', '/v1/reporting?limit=1', { key, headers: { 'If-None-Match': page.headers.get('etag')! } });
  assert.equal(notModified.status, 304);
  const answers = {
    'a JSON page': page,
    'a 304': notModified,
    'a 401 problem': await server.call('GET', '/v1/reporting?limit=1'),
    'a 404 problem': await server.call('GET', '/no/such/path'),
    'a 400 problem': await server.call('GET', '/v1/reporting?limit=-1', { key }),
    '/healthz': await server.call('GET', '/healthz'),
    '/metrics': await server.call('GET', '/metrics'),
    '/openapi.json': await server.call('GET', '/openapi.json'),
    'the redirect from /': await server.call('GET', '/'),
    '/docs': await server.call('GET', '/docs'),
    'a file of /docs': await server.call('GET', '/docs/swagger-ui-bundle.js'),
  };
  const statuses = { 'a 401 problem': 401, 'a 404 problem': 404, 'a 400 problem': 400, 'the redirect from /': 302 } as Record<string, number>;
  for (const [what, answer] of Object.entries(answers)) {
    assert.equal(answer.status, statuses[what] ?? (what === 'a 304' ? 304 : 200), what);
    assertSafeHeaders(what, answer.headers);
  }

  // Refused by Node's parser before the app sees it: the raw answer of clientErrors.ts.
  const refused = await rawExchange(server.url, 'NOT HTTP AT ALL\r\n\r\n');
  assert.equal(refused.status, 400);
  assertConforms('GET', '/not-an-operation', refused.status, refused.headers, refused.text);
  assertSafeHeaders('a refusal of the parser', refused.headers);

  const docs = answers['/docs'].headers;
  const policy = docs.get('content-security-policy') ?? '';
  assert.match(policy, /(^|;\s*)frame-ancestors 'none'(;|$)/, 'the page may not be framed');
  assert.match(policy, /(^|;\s*)default-src 'none'(;|$)/, 'nothing is allowed that is not named');
  assert.equal(docs.get('referrer-policy'), 'no-referrer');
});
