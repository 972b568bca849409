import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProblemError, type CompdataClient, type V2PageOptions } from '../../src/client/index.js';
import { collect, rawPages, startClientServer, v2NextUrl, type ClientServer, type V2Page } from './clientServer.js';

/**
 * `client.v2` against a real server: each walk must equal the pages that raw requests following
 * `meta.next_url` receive (checked against the contract), send exactly those URLs, and pass its
 * options through as the query.
 */

/** The ids the tenant's `GET /v2/data-structures` gives, read by hand. */
async function structureIds(env: ClientServer): Promise<{ statements: string; deals: string }> {
  const listing = await env.server.call('GET', '/v2/data-structures', { key: env.key });
  assert.equal(listing.status, 200, listing.text);
  const id = (type: string, name: string) => listing.body.data.find((s: { type: string; name: string }) => s.type === type && s.name === name).id as string;
  return { statements: id('statement_reporting', 'Statement reporting'), deals: id('record_reporting', 'Deals') };
}

/** The query `options` stand for, as the raw requests send it. */
function queryOf(options: V2PageOptions): string {
  const time = (value: string | Date | undefined) => (value instanceof Date ? value.toISOString() : value);
  const pairs: [string, string | number | undefined][] = [
    ['start_id', options.startId],
    ['limit', options.limit],
    ['last_modified_after', time(options.lastModifiedAfter)],
    ['last_modified_before', time(options.lastModifiedBefore)],
  ];
  const given = pairs.filter((pair): pair is [string, string | number] => pair[1] !== undefined);
  return given.length === 0 ? '' : `?${new URLSearchParams(given.map(([name, value]): [string, string] => [name, String(value)])).toString()}`;
}

type Walk = (client: CompdataClient, options: V2PageOptions) => { pages: AsyncIterable<unknown>; records: AsyncIterable<unknown> };

/** Walks `walk` with `options` and compares it with raw requests from `path`; returns the records. */
async function assertWalkMatchesRaw(env: ClientServer, path: string, walk: Walk, options: V2PageOptions, lookups = 0): Promise<Record<string, unknown>[]> {
  const raw = await rawPages<V2Page>(env.server, env.key, `${path}${queryOf(options)}`, v2NextUrl);
  const client = env.client();
  env.sent.length = 0;
  assert.deepEqual(await collect(walk(client, options).pages), raw, 'pages() yields what raw requests following meta.next_url receive');
  const pageRequests = env.sent.slice(lookups);
  assert.deepEqual(
    pageRequests.map((request) => new URL(request.url).pathname),
    raw.map(() => path),
    'after the lookups, only the pages were requested',
  );
  assert.deepEqual(
    Object.fromEntries(new URL(pageRequests[0]!.url).searchParams),
    Object.fromEntries(new URLSearchParams(queryOf(options))),
    'the options went out as the query of the first page',
  );
  assert.deepEqual(
    pageRequests.slice(1).map((request) => request.url),
    raw.slice(0, -1).map((page) => page.meta.next_url),
    'each later request went to meta.next_url exactly as given',
  );
  const records = raw.flatMap((page) => page.data);
  assert.deepEqual(await collect(walk(client, options).records), records, 'records() yields every record once, in order');
  return records;
}

test('structures and fields are the answers of GET /v2/data-structures and .../fields', async (t) => {
  const env = await startClientServer(t, { records: 12, deals: 5 });
  const ids = await structureIds(env);
  const client = env.client();
  assert.deepEqual(await client.v2.structures(), (await env.server.call('GET', '/v2/data-structures', { key: env.key })).body);
  for (const id of [ids.statements, ids.deals]) {
    const fields = await client.v2.fields(id);
    assert.deepEqual(fields, (await env.server.call('GET', `/v2/data-structures/${id}/fields`, { key: env.key })).body);
    assert.ok(fields.count > 3 && fields.fields.every((field) => field.created_at === null));
  }
});

test('statements: a full walk by the client equals the pages read over HTTP by hand', async (t) => {
  const env = await startClientServer(t, { users: 4, records: 43 });
  const { statements } = await structureIds(env);
  const path = `/v2/reporting/${statements}/statements`;
  const byId: Walk = (c, o) => ({ pages: c.v2.statements.pages(statements, o), records: c.v2.statements.records(statements, o) });
  const found: Walk = (c, o) => ({ pages: c.v2.statements.pages(o), records: c.v2.statements.records(o) });
  const all = await assertWalkMatchesRaw(env, path, byId, {});
  assert.equal(all.length, 43);
  for (const options of [{ limit: 7 }, { limit: 1, startId: 'acme-r39' }, { startId: 'acme-r5', limit: 10 }, { startId: 'acme-r42' }] as V2PageOptions[]) {
    await t.test(`by id ${JSON.stringify(options)}`, async () => {
      const records = await assertWalkMatchesRaw(env, path, byId, options);
      const from = options.startId === undefined ? 0 : all.findIndex((record) => record['standard.id'] === options.startId) + 1;
      assert.deepEqual(records, all.slice(from));
    });
  }
  await t.test('without an id: found once per client with structures(), then the same walk', async () => {
    await assertWalkMatchesRaw(env, path, found, { limit: 10 }, 1);
    assert.match(env.sent[0]!.url, /\/v2\/data-structures$/);
    const client = env.client();
    env.sent.length = 0;
    await collect(client.v2.statements.records({ limit: 20 }));
    await collect(client.v2.statements.pages(undefined, { limit: 30 }));
    assert.equal(env.sent.filter((request) => request.url.endsWith('/v2/data-structures')).length, 1, 'one lookup for two walks');
    assert.equal(env.sent.length, 1 + 3 + 2);
  });
});

test('records: the deals table, walked as read by hand', async (t) => {
  const env = await startClientServer(t, { records: 5, deals: 23 });
  const { deals } = await structureIds(env);
  const walk: Walk = (c, o) => ({ pages: c.v2.records.pages(deals, o), records: c.v2.records.records(deals, o) });
  const path = `/v2/reporting/${deals}/records`;
  for (const options of [{}, { limit: 4 }, { limit: 5, startId: 'acme-d10' }] as V2PageOptions[]) {
    await t.test(JSON.stringify(options), async () => {
      const records = await assertWalkMatchesRaw(env, path, walk, options);
      const first = options.startId === undefined ? 0 : 11;
      assert.deepEqual(records.map((record) => record['standard.id']), Array.from({ length: 23 - first }, (_, i) => `acme-d${first + i}`));
    });
  }
});

test('the time filters are passed through, as text or as a Date', async (t) => {
  const env = await startClientServer(t, { users: 3, records: 36 });
  const { statements } = await structureIds(env);
  const client = env.client();
  const times = (records: Record<string, unknown>[]) => records.map((record) => record['standard.last_modified_at'] as string).sort();
  const newest = times(await collect(client.v2.statements.records())).at(-1)!;
  const put = await env.server.call('PUT', '/v1/users/groups/bulk', {
    key: env.key,
    json: { data: [{ user: 'user1@acme.example', group_dimension: 'segment', group: 'SMB', start_date: '2026-06' }] },
  });
  assert.equal(put.status, 200, put.text);

  const path = `/v2/reporting/${statements}/statements`;
  const walk: Walk = (c, o) => ({ pages: c.v2.statements.pages(statements, o), records: c.v2.statements.records(statements, o) });
  const changed = await assertWalkMatchesRaw(env, path, walk, { lastModifiedAfter: newest, limit: 2 });
  assert.ok(changed.length > 0 && changed.length < 36, `some records changed (${changed.length})`);
  for (const record of changed) assert.equal((record['standard.user'] as { email: string }).email, 'user1@acme.example');

  const oldestChange = new Date(times(changed)[0]!);
  const unchanged = await assertWalkMatchesRaw(env, path, walk, { lastModifiedBefore: oldestChange, limit: 10 });
  assert.equal(unchanged.length + changed.length, 36, 'before the first change: every record it did not change');
  const both = await assertWalkMatchesRaw(env, path, walk, { lastModifiedAfter: new Date(0), lastModifiedBefore: oldestChange, startId: 'acme-r3' });
  assert.deepEqual(both, unchanged.slice(unchanged.findIndex((record) => record['standard.id'] === 'acme-r3') + 1));
});

test('a meta.next_url on another origin than baseUrl is not followed (the key would go there)', async (t) => {
  const env = await startClientServer(t, { records: 25, server: { publicUrl: 'http://compdata.invalid' } });
  const { statements } = await structureIds(env);
  const pages: unknown[] = [];
  await assert.rejects(async () => {
    for await (const page of env.client().v2.statements.pages(statements, { limit: 10 })) pages.push(page);
  }, /next page is on http:\/\/compdata\.invalid, not on the client's baseUrl/);
  assert.equal(pages.length, 1, 'the first page was yielded');
  assert.equal(env.sent.length, 1, 'nothing was sent to the other origin');
});

test('problem answers are thrown as ProblemError with the request id, as the server sends them', async (t) => {
  const env = await startClientServer(t, { records: 5, deals: 2 });
  const { statements } = await structureIds(env);
  const unknown = '00000000-0000-8000-8000-000000000000';
  const cases: [string, { call: (client: CompdataClient) => Promise<unknown>; want: Partial<ProblemError>; pointer?: string }][] = [
    ['an unknown structure', { call: (c) => collect(c.v2.records.records(unknown)), want: { status: 404, type: 'urn:compdata:problem:not-found' } }],
    ['the statements read as a table', { call: (c) => collect(c.v2.records.pages(statements)), want: { status: 404 } }],
    ['the fields of an unknown structure', { call: (c) => c.v2.fields(unknown), want: { status: 404 } }],
    ['limit 0', { call: (c) => collect(c.v2.statements.pages({ limit: 0 })), want: { status: 400 }, pointer: '/query/limit' }],
    ['a time that is no time', { call: (c) => collect(c.v2.statements.records({ lastModifiedAfter: 'yesterday' })), want: { status: 400 }, pointer: '/query/last_modified_after' }],
    ['a start_id that names no record', { call: (c) => collect(c.v2.statements.records(statements, { startId: 'acme-d1' })), want: { status: 400 }, pointer: '/query/start_id' }],
    ['an unknown key, listing', { call: (c) => c.v2.structures(), want: { status: 401, title: 'Unauthorized' } }],
    ['an unknown key, finding the statements', { call: (c) => collect(c.v2.statements.records()), want: { status: 401 } }],
  ];
  for (const [name, { call, want, pointer }] of cases) {
    env.sent.length = 0;
    const client = name.includes('key') ? env.client({ apiKey: 'cdk_nope_nope' }) : env.client();
    const error = await call(client).then(() => assert.fail(`${name}: no error`), (e: unknown) => e);
    assert.ok(error instanceof ProblemError, `${name}: ${String(error)}`);
    for (const [field, value] of Object.entries(want)) assert.deepEqual(error[field as keyof ProblemError], value, `${name}: ${field}`);
    if (pointer !== undefined) assert.deepEqual(error.errors.map((e) => e.pointer), [pointer], name);
    const failed = env.sent.at(-1)!;
    assert.equal(error.requestId, failed.requestId, `${name}: the answer's X-Request-Id`);
    // The same request by hand: the harness checks the answer against the contract.
    const again = await env.server.call('GET', failed.url.slice(env.server.url.length), { key: name.includes('key') ? 'cdk_nope_nope' : env.key });
    assert.deepEqual([again.status, again.body.type, again.body.detail], [error.status, error.type, error.detail], name);
  }
});
