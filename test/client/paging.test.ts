import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProblemError, type CompdataClient, type PageOptions } from '../../src/client/index.js';
import { attributionItems, collect, rawPages, startClientServer } from './clientServer.js';

/**
 * The client's iterators (`pages()` and `records()` of the reporting records, a table's
 * records and both read-backs) against a real server: each walk must equal the pages that raw
 * requests following `next` receive, send exactly those URLs, and cover every record.
 */
type Walk = (client: CompdataClient, options: PageOptions) => { pages: AsyncIterable<unknown>; records: AsyncIterable<unknown> };

const reads: [string, { path: string; walk: Walk }][] = [
  ['reporting', { path: '/v1/reporting', walk: (c, o) => ({ pages: c.reporting.pages(o), records: c.reporting.records(o) }) }],
  ['tables deals', { path: '/v1/tables/deals/records', walk: (c, o) => ({ pages: c.tables.pages('deals', o), records: c.tables.records('deals', o) }) }],
  ['group read-back', { path: '/v1/users/groups', walk: (c, o) => ({ pages: c.attributions.groups.pages(o), records: c.attributions.groups.records(o) }) }],
  [
    'group read-back, filtered',
    {
      path: '/v1/users/groups?user=USER4%40acme.example&group_dimension=region',
      walk: (c, o) => {
        const filters = { ...o, user: 'USER4@acme.example', group_dimension: 'region' };
        return { pages: c.attributions.groups.pages(filters), records: c.attributions.groups.records(filters) };
      },
    },
  ],
  ['manager read-back', { path: '/v1/users/managers', walk: (c, o) => ({ pages: c.attributions.managers.pages(o), records: c.attributions.managers.records(o) }) }],
];

const withQuery = (path: string, query: string) => (query ? `${path}${path.includes('?') ? '&' : '?'}${query}` : path);

test('every iterator walks the tenant completely and matches raw requests', async (t) => {
  const env = await startClientServer(t, { users: 12, records: 103, deals: 23 });
  const put = await env.server.call('PUT', '/v1/users/groups/bulk', { key: env.key, json: { data: attributionItems(env.users) } });
  assert.equal(put.status, 200, put.text);

  for (const [name, { path, walk }] of reads) {
    const everything = (await env.server.call('GET', withQuery(path, 'limit=2000'), { key: env.key })).body;
    assert.ok(everything.count >= 2 && everything.next === undefined, `${name}: the tenant has a few records, all on one raw page`);
    for (const options of [{}, { limit: 7 }, { limit: 1, offset: 2 }, { offset: 5, limit: 3 }, { offset: everything.count }] as PageOptions[]) {
      await t.test(`${name} ${JSON.stringify(options)}`, async () => {
        const query = [options.offset === undefined ? '' : `offset=${options.offset}`, options.limit === undefined ? '' : `limit=${options.limit}`];
        const raw = await rawPages(env.server, env.key, withQuery(path, query.filter(Boolean).join('&')));
        const client = env.client();
        env.sent.length = 0;
        const pages = await collect(walk(client, options).pages);
        assert.deepEqual(pages, raw, 'pages() yields what raw requests following next receive');
        assert.deepEqual(
          env.sent.slice(1).map((request) => request.url),
          raw.slice(0, -1).map((page) => page.next),
          'each later request went to next exactly as given',
        );
        assert.deepEqual(await collect(walk(client, options).records), everything.data.slice(options.offset ?? 0), 'records() yields every record once, in order');
      });
    }
  }
});

test('limit 0 gives one page with the total and no records', async (t) => {
  const env = await startClientServer(t, { records: 25, deals: 7 });
  const client = env.client();
  assert.deepEqual(await collect(client.reporting.pages({ limit: 0 })), [{ count: 25, data: [] }]);
  assert.deepEqual(await collect(client.tables.records('deals', { limit: 0 })), []);
});

test('breaking out of a walk sends nothing more', async (t) => {
  const env = await startClientServer(t, { records: 25 });
  const seen = [];
  for await (const record of env.client().reporting.records({ limit: 5 })) {
    seen.push(record.id);
    if (seen.length === 7) break;
  }
  assert.deepEqual(seen, ['acme-r0', 'acme-r1', 'acme-r2', 'acme-r3', 'acme-r4', 'acme-r5', 'acme-r6']);
  assert.equal(env.sent.length, 2, 'two pages of five were read, no third');
});

test('an AbortSignal stops a walk: the call its own, or the client its', async (t) => {
  const env = await startClientServer(t, { records: 25 });
  const cases: [string, (controller: AbortController) => AsyncIterable<unknown>][] = [
    ['the call signal', (controller) => env.client().reporting.records({ limit: 5, signal: controller.signal })],
    ['the client signal', (controller) => env.client({ signal: controller.signal }).reporting.records({ limit: 5 })],
  ];
  for (const [name, walk] of cases) {
    env.sent.length = 0;
    const controller = new AbortController();
    const reason = new Error(`stopped by ${name}`);
    let seen = 0;
    await assert.rejects(async () => {
      for await (const _ of walk(controller)) if ((seen += 1) === 5) controller.abort(reason);
    }, reason);
    assert.equal(seen, 5, name);
    assert.equal(env.sent.length, 1, `${name}: no request after the abort reached the server`);
    await assert.rejects(collect(walk(controller)), reason, `${name}: already aborted`);
  }
});

test('problem answers are thrown as ProblemError with the request id', async (t) => {
  const env = await startClientServer(t);
  const cases: [string, { walk: (client: CompdataClient) => AsyncIterable<unknown>; want: Partial<ProblemError> }][] = [
    ['unknown table', { walk: (c) => c.tables.records('forecasts'), want: { status: 404, type: 'urn:compdata:problem:not-found', errors: [] } }],
    ['limit past 2000', { walk: (c) => c.reporting.pages({ limit: 2001 }), want: { status: 400, title: 'Bad Request' } }],
    ['a bad filter', { walk: (c) => c.attributions.groups.records({ user: 'not-an-email' }), want: { status: 400, type: 'urn:compdata:problem:bad-request' } }],
    ['a revoked or unknown key', { walk: (c) => c.reporting.records(), want: { status: 401, title: 'Unauthorized' } }],
  ];
  for (const [name, { walk, want }] of cases) {
    env.sent.length = 0;
    const client = name.includes('key') ? env.client({ apiKey: 'cdk_nope_nope' }) : env.client();
    const error = await collect(walk(client)).then(() => assert.fail(`${name}: no error`), (e: unknown) => e);
    assert.ok(error instanceof ProblemError, name);
    for (const [field, value] of Object.entries(want)) assert.deepEqual(error[field as keyof ProblemError], value, `${name}: ${field}`);
    assert.ok(error.detail.length > 0, name);
    assert.equal(error.requestId, env.sent[0]!.requestId, `${name}: the answer's X-Request-Id`);
    assert.ok(error.requestId && error.message.includes(error.requestId), `${name}: the message names the request`);
  }
  const bad = await collect(env.client().reporting.records({ limit: 2001 })).catch((e: ProblemError) => e);
  assert.deepEqual((bad as ProblemError).errors.map((e) => e.pointer), ['/query/limit']);
});

test('a next on another origin than baseUrl is not followed (the key would go there)', async (t) => {
  const env = await startClientServer(t, { records: 25, server: { publicUrl: 'http://compdata.invalid' } });
  const pages: unknown[] = [];
  await assert.rejects(async () => {
    for await (const page of env.client().reporting.pages({ limit: 10 })) pages.push(page);
  }, /next page is on http:\/\/compdata\.invalid, not on the client's baseUrl/);
  assert.equal(pages.length, 1, 'the first page was yielded');
  assert.equal(env.sent.length, 1, 'nothing was sent to the other origin');
});
