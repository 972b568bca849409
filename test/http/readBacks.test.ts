import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildFixture, fixtureUser } from '../support/fixture.js';
import { shared, startTestServer, TEST_ENGINE, type TestServer } from '../support/harness.js';
import { readAll } from '../support/attributions.js';

/**
 * GET /v1/users/groups and GET /v1/users/managers (extensions, docs/rules.md#bulk-attributions, #paging): the bulk item shape,
 * the documented order, filters, and the paged envelope with its opaque cursor.
 * The tenant's e-mails differ in case so that ordering without regard to case shows.
 */
const EMAILS = ['bob@t.example', 'Alice@t.example', 'carol@t.example', 'ALAN@t.example', 'Zoe@t.example', 'b@t.example'];

/**
 * A server that the tests of a `describe` share, with a fixture tenant whose attributions must
 * never show in the others' reads; each test makes a tenant of its own there (`t1`, `t2`, ...;
 * the same users and e-mails) and reads only through its key, so another test's items seen
 * would fail its comparison.
 */
const sharedServer = () =>
  shared((scope) =>
    startTestServer(scope, {}, async (store) => {
      await buildFixture(store, { tenant: 'other' });
    }),
  );

async function tenantServer(describeServer: () => Promise<TestServer>) {
  const tenant = `t${(tenants += 1)}`;
  const server = await describeServer();
  const { store } = server;
  await store.loadTenant(tenant, {}, async (writer) => {
    await writer.defineMetricsAndDimensions([], ['segment', 'region']);
    await writer.upsertUsers(EMAILS.map((email, i) => ({ ...fixtureUser(tenant, i), email })));
    await writer.finish();
  });
  const key = (await store.createKey(tenant)).key;
  const put = async (data: unknown[]) => {
    const response = await server.call('PUT', '/v1/users/groups/bulk', { key, json: { data } });
    assert.equal(response.status, 200, response.text);
    return response.body.data as any[];
  };
  return { server, key, put };
}
let tenants = 0;

/** Group items for every user: two periods in region, one in segment; sent in a scrambled order. */
function groupItems() {
  return EMAILS.flatMap((email, i) => [
    { user: email.toUpperCase(), group_dimension: 'region', group: `R${i}`, start_date: '2026-07', end_date: null },
    { user: email, group_dimension: 'segment', group: `S${i}`, start_date: '2025-01', end_date: '2025-12' },
    { user: email.toLowerCase(), group_dimension: 'region', group: `Q${i}`, start_date: '2026-01', end_date: '2026-06' },
  ]).reverse();
}

const caseless = (a: string, b: string) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0);
const stored = (email: string) => EMAILS.find((e) => e.toLowerCase() === email.toLowerCase())!;

describe('GET /v1/users/groups', () => {
  const describeServer = sharedServer();
  test('items in the bulk shape, by user without regard to case, then dimension key, then start', async () => {
    const { server, key, put } = await tenantServer(describeServer);
    const echoed = await put(groupItems());
    const want = echoed
      .map((item) => ({ ...item, user: stored(item.user) }))
      .sort((a, b) => caseless(a.user, b.user) || (a.group_dimension < b.group_dimension ? -1 : a.group_dimension > b.group_dimension ? 1 : 0) || a.start_date.localeCompare(b.start_date));
    const page = await server.call('GET', '/v1/users/groups', { key });
    assert.deepEqual(page.body, { count: want.length, data: want });
    assert.deepEqual(echoed.map((item) => item.user), groupItems().map((item) => stored(item.user)), 'the echo carries e-mails as stored');
  });

  test('filters: user without regard to case, group_dimension, both; no match gives an empty page', async () => {
    const { server, key, put } = await tenantServer(describeServer);
    await put(groupItems());
    const all = await readAll(server, key, '/v1/users/groups');
    const cases: [string, (item: any) => boolean][] = [
      ['user=alice@T.EXAMPLE', (item) => item.user === 'Alice@t.example'],
      ['group_dimension=segment', (item) => item.group_dimension === 'segment'],
      ['user=zoe@t.example&group_dimension=region', (item) => item.user === 'Zoe@t.example' && item.group_dimension === 'region'],
      ['user=nobody@t.example', () => false],
      ['user=user0@other.example', () => false],
      ['group_dimension=Region', () => false],
    ];
    for (const [query, keep] of cases) {
      const page = await server.call('GET', `/v1/users/groups?${query}`, { key });
      assert.deepEqual(page.body, { count: all.filter(keep).length, data: all.filter(keep) }, query);
      const total = await server.call('GET', `/v1/users/groups?${query}&limit=0`, { key });
      assert.deepEqual(total.body, { count: all.filter(keep).length, data: [] }, `${query} limit=0`);
    }
  });

  test('a bad filter is a 400 pointing at it', async () => {
    const { server, key } = await tenantServer(describeServer);
    for (const [query, pointer] of [['user=not-an-email', '/query/user'], ['group_dimension=', '/query/group_dimension'], ['limit=2001', '/query/limit']]) {
      const response = await server.call('GET', `/v1/users/groups?${query}`, { key });
      assert.equal(response.status, 400, query);
      assert.deepEqual(response.body.errors.map((e: { pointer: string }) => e.pointer), [pointer]);
    }
  });

  test('without a key: 401', async () => {
    const { server } = await tenantServer(describeServer);
    assert.equal((await server.call('GET', '/v1/users/groups')).status, 401);
    assert.equal((await server.call('GET', '/v1/users/managers')).status, 401);
  });
});

describe('paging of the read-backs', () => {
  const describeServer = sharedServer();
  for (const limit of [1, 4, 7, 18, 19]) {
    test(`following next with limit=${limit} visits every item once, in order; raw offsets give the same pages`, async () => {
      const { server, key, put } = await tenantServer(describeServer);
      await put(groupItems());
      const whole = (await server.call('GET', '/v1/users/groups', { key })).body.data;
      const seen: unknown[] = [];
      let path: string | undefined = `/v1/users/groups?limit=${limit}`;
      while (path) {
        const page = await server.call('GET', path, { key });
        assert.equal(page.body.count, page.body.data.length);
        assert.ok(page.body.count <= limit);
        const offset = seen.length;
        seen.push(...page.body.data);
        const raw = await server.call('GET', `/v1/users/groups?limit=${limit}&offset=${offset}`, { key });
        assert.deepEqual(raw.body.data, page.body.data, `page at offset ${offset} by raw offset`);
        const next: string | undefined = page.body.next;
        if (next) {
          const url = new URL(next);
          assert.deepEqual([url.searchParams.get('limit'), url.searchParams.get('offset')], [String(limit), String(seen.length)]);
          assert.ok(url.searchParams.get('cursor'), 'next carries a cursor');
        }
        path = next?.slice(server.url.length);
      }
      assert.deepEqual(seen, whole);
    });
  }

  test('filters are carried in next; the cursor of another offset or filter is ignored; a forged one is a 400', async () => {
    const { server, key, put } = await tenantServer(describeServer);
    await put(groupItems());
    const first = await server.call('GET', '/v1/users/groups?group_dimension=region&limit=2', { key });
    const next = new URL(first.body.next);
    assert.equal(next.searchParams.get('group_dimension'), 'region');
    const cursor = next.searchParams.get('cursor')!;
    const byOffset = (offset: number, query = 'group_dimension=region') => server.call('GET', `/v1/users/groups?${query}&limit=2&offset=${offset}`, { key });
    const stale = await server.call('GET', `/v1/users/groups?group_dimension=region&limit=2&offset=4&cursor=${cursor}`, { key });
    assert.equal(stale.text.replace(/cursor=[^"&]+/, ''), (await byOffset(4)).text.replace(/cursor=[^"&]+/, ''));
    const otherFilter = await server.call('GET', `/v1/users/groups?limit=2&offset=2&cursor=${cursor}`, { key });
    const unfiltered = await server.call('GET', '/v1/users/groups?limit=2&offset=2', { key });
    assert.deepEqual(otherFilter.body.data, unfiltered.body.data);
    assert.notDeepEqual(otherFilter.body.data, (await byOffset(2)).body.data, 'the filters make a difference here');
    for (const forged of ['abc', 'W10', Buffer.from(JSON.stringify(['2', '[]', '["x", 1]'])).toString('base64url'), '%2B%2B']) {
      const response = await server.call('GET', `/v1/users/groups?limit=2&offset=2&cursor=${forged}`, { key });
      assert.equal(response.status, 400, forged);
      assert.deepEqual(response.body.errors.map((e: { pointer: string }) => e.pointer), ['/query/cursor']);
    }
  });

  test('a cursor whose key carries a pk after the start (as SQLite issued before migration 27) leads to the same page', async () => {
    const { server, key, put } = await tenantServer(describeServer);
    await put(groupItems());
    const next = new URL((await server.call('GET', '/v1/users/groups?limit=4', { key })).body.next);
    const [offset, scope, rowKey] = JSON.parse(Buffer.from(next.searchParams.get('cursor')!, 'base64url').toString('utf8')) as string[];
    const issued = JSON.parse(rowKey!) as unknown[];
    // SQLite keys a group row by user, dimension and start month; PostgreSQL by its pk after them.
    assert.equal(issued.length, TEST_ENGINE === 'sqlite' ? 3 : 4);
    const withPk = issued.length === 3 ? [...issued, 987_654_321] : issued;
    const old = Buffer.from(JSON.stringify([offset, scope, JSON.stringify(withPk)]), 'utf8').toString('base64url');
    const byOld = await server.call('GET', `/v1/users/groups?limit=4&offset=4&cursor=${old}`, { key });
    const byOffset = await server.call('GET', '/v1/users/groups?limit=4&offset=4', { key });
    assert.equal(byOld.status, 200, byOld.text);
    assert.equal(byOld.body.count, 4);
    assert.deepEqual(byOld.body.data, byOffset.body.data);
  });

  test('offsets at or past the end give an empty page without next; limit=0 gives the total', async () => {
    const { server, key, put } = await tenantServer(describeServer);
    const count = (await put(groupItems())).length;
    for (const offset of [count, count + 1, '9007199254740993', '9223372036854775807']) {
      const page = await server.call('GET', `/v1/users/groups?offset=${offset}`, { key });
      assert.deepEqual(page.body, { count: 0, data: [] });
    }
    assert.deepEqual((await server.call('GET', '/v1/users/groups?limit=0', { key })).body, { count, data: [] });
    assert.equal((await server.call('GET', '/v1/users/groups?offset=-1', { key })).status, 400);
  });

  test('a walk that follows next while others write sees every item that existed throughout exactly once', async () => {
    const { server, key, put } = await tenantServer(describeServer);
    const existing = await put(groupItems().filter((item) => item.group_dimension === 'segment'));
    const seen: any[] = [];
    let path: string | undefined = '/v1/users/groups?limit=2';
    for (let round = 0; path; round += 1) {
      const page = await server.call('GET', path, { key });
      seen.push(...page.body.data);
      // New attributions sorting before and after the walk's position.
      await put([{ user: EMAILS[round % EMAILS.length]!, group_dimension: 'region', group: `W${round}`, start_date: `${2000 + round}-01`, end_date: `${2000 + round}-01` }]);
      path = page.body.next?.slice(server.url.length);
    }
    const keyOf = (item: any) => `${item.user}|${item.group_dimension}|${item.start_date}`;
    for (const item of existing) assert.equal(seen.filter((s) => keyOf(s) === keyOf(item)).length, 1, keyOf(item));
    assert.equal(new Set(seen.map(keyOf)).size, seen.length, 'nothing twice');
  });
});

describe('GET /v1/users/managers', () => {
  const describeServer = sharedServer();
  test('by user without regard to case, then start with since-always first; start_date null, never a sentinel', async () => {
    const { server, key, put } = await tenantServer(describeServer);
    const items = [
      { user: 'zoe@t.example', manager: 'ALICE@t.example', start_date: '2026-01' },
      { user: 'bob@t.example', manager: 'alan@t.example', start_date: '2026-04', end_date: '2026-06' },
      { user: 'bob@t.example', manager: 'carol@t.example', end_date: '2026-03' },
      { user: 'alice@t.example', manager: 'b@t.example' },
      { user: 'BOB@t.example', manager: 'alice@t.example', start_date: '2026-07' },
    ];
    const echoed = await put(items);
    const want = [...echoed].sort((a, b) => caseless(a.user, b.user) || (a.start_date ?? '').localeCompare(b.start_date ?? ''));
    assert.deepEqual(want.map((item) => [item.user, item.start_date]), [
      ['Alice@t.example', null], ['bob@t.example', null], ['bob@t.example', '2026-04'], ['bob@t.example', '2026-07'], ['Zoe@t.example', '2026-01'],
    ]);
    assert.deepEqual((await server.call('GET', '/v1/users/managers', { key })).body, { count: 5, data: want });
    assert.deepEqual(await readAll(server, key, '/v1/users/managers?limit=2'), want);
    const bob = await server.call('GET', '/v1/users/managers?user=BOB@T.EXAMPLE', { key });
    assert.deepEqual(bob.body, { count: 3, data: want.filter((item) => item.user === 'bob@t.example') });
  });
});
