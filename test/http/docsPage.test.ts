import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { startTestServer } from '../support/harness.js';

test('the API reference: /docs and its files without a key, / redirects there, all from this server', async (t) => {
  const server = await startTestServer(t);

  await t.test('GET /docs is an HTML page whose every asset is served here (relative URLs, never another host)', async () => {
    const page = await server.call('GET', '/docs');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    const assets = [...page.text.matchAll(/(?:href|src)="([^"]+)"/g)].map((match) => match[1]!);
    assert.deepEqual(assets, ['docs/swagger-ui.css', 'docs/favicon-32x32.png', 'docs/swagger-ui-bundle.js', 'docs/reference.js']);
    for (const asset of assets) {
      const file = await server.call('GET', `/${asset}`);
      assert.equal(file.status, 200, asset);
      assert.ok(file.text.length > 0, asset);
    }
    const script = await server.call('GET', '/docs/reference.js');
    assert.match(script.text, /validatorUrl: null/);
    assert.doesNotMatch(script.text + page.text, /https?:\/\//, 'the page names no other host');
  });

  await t.test('an unknown asset is a 404 problem', async () => {
    for (const name of ['index.html', 'swagger-ui-bundle.js.map', '..%2Fpackage.json']) {
      const response = await server.call('GET', `/docs/${name}`);
      assert.equal(response.status, 404, name);
    }
  });

  await t.test('GET / and HEAD / redirect to /docs under the public base', async () => {
    for (const method of ['GET', 'HEAD']) {
      const response = await server.call(method, '/', { headers: { Host: 'docs.example.test:8443' } });
      assert.equal(response.status, 302, method);
      assert.equal(response.headers.get('location'), 'http://docs.example.test:8443/docs');
    }
  });
});

test("the served document's servers name the server's public base", async (t) => {
  let fixture!: Fixture;
  const plain = await startTestServer(t, {}, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme' });
  });
  const behindProxy = await startTestServer(t, { publicUrl: 'https://api.example.com/compdata/' });

  const cases: [string, { server: typeof plain; headers?: Record<string, string>; want: string }][] = [
    ['the Host the request reached it at', { server: plain, headers: { Host: 'reports.example.test:9000' }, want: 'http://reports.example.test:9000' }],
    ['the listening address without a Host', { server: plain, want: plain.url }],
    ['--public-url, whatever the Host', { server: behindProxy, headers: { Host: 'elsewhere.test' }, want: 'https://api.example.com/compdata' }],
  ];
  for (const [name, { server, headers, want }] of cases) {
    await t.test(name, async () => {
      const document = await server.call('GET', '/openapi.json', { headers });
      assert.deepEqual(document.body.servers.map((entry: { url: string }) => entry.url), [want]);
    });
  }

  await t.test('the same base as the next URLs of that request', async () => {
    const headers = { Host: 'reports.example.test:9000' };
    const page = await plain.call('GET', '/v1/reporting?limit=1', { key: fixture.key, headers });
    const document = await plain.call('GET', '/openapi.json', { headers });
    assert.ok(page.body.next.startsWith(`${document.body.servers[0].url}/v1/reporting?`), page.body.next);
  });

  await t.test('the rest of the document is the contract as written, integers exact', async () => {
    const document = await plain.call('GET', '/openapi.json');
    assert.match(document.text, /"maximum":9223372036854775807[,}]/);
    assert.equal(document.body.info.title, 'compdata sales-compensation data API');
  });

  await t.test('the page renders both versions: the v1 reads and the v2 reads, each v2 read under the v2 tag', async () => {
    const paths = (await plain.call('GET', '/openapi.json')).body.paths as Record<string, { get?: { operationId: string; tags: string[] } }>;
    const tagged = (path: string) => [paths[path]?.get?.operationId, paths[path]?.get?.tags];
    assert.deepEqual(tagged('/v1/reporting'), ['getReportingRecords', ['reporting']]);
    assert.deepEqual(tagged('/v2/data-structures'), ['getDataStructures', ['v2']]);
    assert.deepEqual(tagged('/v2/data-structures/{table_id}/fields'), ['getDataStructureFields', ['v2']]);
    assert.deepEqual(tagged('/v2/reporting/{table_id}/statements'), ['getV2Statements', ['v2']]);
    assert.deepEqual(tagged('/v2/reporting/{table_id}/records'), ['getV2Records', ['v2']]);
  });
});
