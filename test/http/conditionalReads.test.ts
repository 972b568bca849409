import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildFixture, fixtureLine, type Fixture } from '../support/fixture.js';
import { startTestServer, withOtherStore } from '../support/harness.js';

const PAGED = [
  '/v1/reporting?limit=5',
  '/v1/reporting?limit=0',
  '/v1/tables/deals/records?limit=3',
  '/v1/users/groups?limit=1',
  '/v1/users/managers?user=user1@acme.example',
];
const ITEM = { user: 'user1@acme.example', group_dimension: 'region', group: 'LATAM', start_date: '2026-01', end_date: null };

test('paged reads carry an ETag; If-None-Match gives 304 until the tenant data changes', async (t) => {
  let acme!: Fixture;
  let globex!: Fixture;
  const server = await startTestServer(t, {}, async (store) => {
    acme = await buildFixture(store, { tenant: 'acme', records: 25 });
    globex = await buildFixture(store, { tenant: 'globex', records: 25 });
  });
  const get = (path: string, headers: Record<string, string> = {}, key = acme.key) => server.call('GET', path, { key, headers });
  const tags = async () => Promise.all(PAGED.map(async (path) => (await get(path)).headers.get('etag')!));

  await t.test('every paged read: a weak ETag and private, no-cache; sent back, 304 with no body', async () => {
    for (const path of PAGED) {
      const first = await get(path);
      assert.equal(first.status, 200, path);
      assert.match(first.headers.get('etag')!, /^W\/"[A-Za-z0-9_-]+"$/, path);
      assert.equal(first.headers.get('cache-control'), 'private, no-cache', path);
      const again = await get(path, { 'If-None-Match': first.headers.get('etag')! });
      assert.equal(again.status, 304, path);
      assert.equal(again.text, '', path);
      assert.equal(again.headers.get('etag'), first.headers.get('etag'), path);
    }
  });

  await t.test('If-None-Match: a list holding the tag, or *, matches; another tag does not', async () => {
    const path = PAGED[0]!;
    const etag = (await get(path)).headers.get('etag')!;
    const cases: [string, { given: string; want: number }][] = [
      ['the tag', { given: etag, want: 304 }],
      ['the tag, strong', { given: etag.slice(2), want: 304 }],
      ['a list holding it', { given: `W/"other", ${etag}`, want: 304 }],
      ['any', { given: '*', want: 304 }],
      ['another tag', { given: 'W/"other"', want: 200 }],
    ];
    for (const [name, { given, want }] of cases) assert.equal((await get(path, { 'If-None-Match': given })).status, want, name);
  });

  await t.test('the tag differs between pages, tenants and public bases', async () => {
    const first = (await get('/v1/reporting?limit=5')).headers.get('etag');
    const second = (await get('/v1/reporting?limit=5&offset=5')).headers.get('etag');
    const otherTenant = (await get('/v1/reporting?limit=5', {}, globex.key)).headers.get('etag');
    const otherHost = (await get('/v1/reporting?limit=5', { Host: 'elsewhere.test' })).headers.get('etag');
    assert.equal(new Set([first, second, otherTenant, otherHost]).size, 4);
  });

  await t.test('a bulk upsert changes every tag of its tenant, and the page shows it', async () => {
    const before = await tags();
    const globexBefore = (await get(PAGED[0]!, {}, globex.key)).headers.get('etag')!;
    const written = await server.call('PUT', '/v1/users/groups/bulk', { key: acme.key, json: { data: [ITEM] } });
    assert.equal(written.status, 200);
    const after = await tags();
    before.forEach((etag, i) => assert.notEqual(after[i], etag, PAGED[i]));
    for (const [i, path] of PAGED.entries()) assert.equal((await get(path, { 'If-None-Match': before[i]! })).status, 200, path);
    const groups = await get('/v1/users/groups?user=user1@acme.example', { 'If-None-Match': before[3]! });
    assert.deepEqual(groups.body.data, [ITEM]);
    assert.equal((await get(PAGED[0]!, { 'If-None-Match': globexBefore }, globex.key)).status, 304, 'another tenant is unchanged');
  });

  await t.test('a refused bulk upsert writes nothing and changes no tag', async () => {
    const before = await tags();
    const refused = await server.call('PUT', '/v1/users/groups/bulk', { key: acme.key, json: { data: [{ ...ITEM, user: 'nobody@acme.example' }] } });
    assert.equal(refused.status, 422);
    assert.deepEqual(await tags(), before);
  });

  await t.test('an import by another process (the CLI) changes the tags', async () => {
    const before = await tags();
    await withOtherStore(server.database, (store) =>
      store.loadTenant('acme', {}, async (writer) => {
        await writer.upsertReportingRecords([{ ...fixtureLine('acme', 3, acme.users), payment: 999.5 }]);
        await writer.finish();
      }),
    );
    const after = await tags();
    before.forEach((etag, i) => assert.notEqual(after[i], etag, PAGED[i]));
    const page = await get('/v1/reporting?limit=5', { 'If-None-Match': before[0]! });
    assert.equal(page.status, 200);
    assert.equal(page.body.data[3].payment, 999.5);
  });
});
