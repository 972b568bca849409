import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contractDocument } from '../../src/http/document.js';
import { BULK_ITEMS_LIMIT, BulkChunkError, ProblemError, type BulkItem } from '../../src/client/index.js';
import { attributionItems, collect, rawPages, startClientServer, type ClientServer } from './clientServer.js';

/**
 * `client.attributions.bulkUpsert` and `bulkUpsertInChunks` against a real server: what they
 * send, what is written (read back by raw requests), and what is refused before sending.
 */
const storedGroups = async (env: ClientServer) => (await rawPages(env.server, env.key, '/v1/users/groups?group_dimension=segment')).flatMap((page) => page.data);

/** `count` group items of distinct (user, month) slots in dimension segment: none overlaps another. */
function monthlyItems(users: number, count: number, group = (i: number) => `G${i}`): BulkItem[] {
  return Array.from({ length: count }, (_, i) => {
    const month = `20${String(10 + Math.floor(i / users / 12)).padStart(2, '0')}-${String(((Math.floor(i / users)) % 12) + 1).padStart(2, '0')}`;
    return { user: `user${i % users}@acme.example`, group_dimension: 'segment', group: group(i), start_date: month, end_date: month };
  });
}

test('the client limit is the contract maxItems of the bulk body', () => {
  const contract = contractDocument().definition as any;
  assert.equal(BULK_ITEMS_LIMIT, contract.components.schemas.GroupsBulkPutBody.properties.data.maxItems);
});

test('bulkUpsert: one request that writes every item and returns the echo', async (t) => {
  const env = await startClientServer(t, { users: 6 });
  const items = attributionItems(env.users);
  const result = await env.client().attributions.bulkUpsert(items);
  assert.equal(env.sent.length, 1);
  assert.deepEqual(env.sent.map(({ method, url }) => [method, url]), [['PUT', `${env.server.url}/v1/users/groups/bulk`]]);
  assert.equal(result.count, items.length);
  assert.deepEqual(result.data[1], { ...items[1], end_date: null });
  const readBack = await collect(env.client().attributions.managers.records());
  assert.deepEqual(readBack.length, items.filter((item) => 'manager' in item).length);
});

test('bulkUpsert refuses more than 200 items before sending anything, naming the limit', async (t) => {
  const env = await startClientServer(t, { users: 12 });
  for (const count of [201, 1000]) {
    await assert.rejects(env.client().attributions.bulkUpsert(monthlyItems(env.users, count)), (error: unknown) => {
      assert.ok(error instanceof RangeError);
      assert.match(error.message, new RegExp(`at most 200 items in one request \\(got ${count}\\)`));
      assert.match(error.message, /bulkUpsertInChunks/);
      return true;
    });
  }
  assert.equal(env.sent.length, 0);
  const exactly200 = await env.client().attributions.bulkUpsert(monthlyItems(env.users, 200));
  assert.equal(exactly200.count, 200, 'the limit itself is allowed');
});

test('a broken rule is a ProblemError with pointers and the request id, and nothing is written', async (t) => {
  const env = await startClientServer(t, { users: 3 });
  const items = monthlyItems(env.users, 5);
  items[3] = { ...items[3]!, user: 'nobody@acme.example' };
  const error = await env.client().attributions.bulkUpsert(items).catch((e: unknown) => e);
  assert.ok(error instanceof ProblemError);
  assert.equal(error.status, 422);
  assert.equal(error.type, 'urn:compdata:problem:unprocessable');
  assert.equal(error.title, 'Unprocessable Content');
  assert.deepEqual(error.errors.map((e) => e.pointer), ['/data/3/user']);
  assert.match(error.errors[0]!.message, /nobody@acme\.example/);
  assert.equal(error.requestId, env.sent[0]!.requestId);
  assert.deepEqual(await storedGroups(env), []);
});

test('an empty list is sent and refused by the server (400), not guessed at', async (t) => {
  const env = await startClientServer(t);
  const error = await env.client().attributions.bulkUpsert([]).catch((e: unknown) => e);
  assert.ok(error instanceof ProblemError && error.status === 400, String(error));
  assert.equal(env.sent.length, 1);
});

test('bulkUpsertInChunks: consecutive requests of `size` items, every item written', async (t) => {
  const env = await startClientServer(t, { users: 12 });
  const items = monthlyItems(env.users, 450);
  const cases: [string, { size?: number; requests: number[] }][] = [
    ['default size 200', { requests: [200, 200, 50] }],
    ['size 150', { size: 150, requests: [150, 150, 150] }],
    ['size 100', { size: 100, requests: [100, 100, 100, 100, 50] }],
  ];
  for (const [name, { size, requests }] of cases) {
    env.sent.length = 0;
    const bodies: number[] = [];
    const client = env.client({
      fetch: async (request) => {
        bodies.push(((await request.clone().json()) as { data: unknown[] }).data.length);
        return fetch(request);
      },
    });
    const result = await client.attributions.bulkUpsertInChunks(items, size === undefined ? {} : { size });
    assert.deepEqual(bodies, requests, name);
    assert.equal(result.count, 450, name);
    assert.deepEqual(result.data.map((item) => ('group' in item ? item.group : '')), items.map((item) => ('group' in item ? item.group : '')), name);
  }
  assert.equal((await storedGroups(env)).length, 450);
});

test('bulkUpsertInChunks: a failed chunk leaves the chunks before it written, and says which', async (t) => {
  const env = await startClientServer(t, { users: 12 });
  const items = monthlyItems(env.users, 450);
  items[317] = { ...items[317]!, user: 'nobody@acme.example' };
  const error = await env.client().attributions.bulkUpsertInChunks(items).catch((e: unknown) => e);
  assert.ok(error instanceof BulkChunkError);
  assert.equal(error.failedAt, 200);
  assert.equal(error.written.count, 200);
  const problem = error.cause;
  assert.ok(problem instanceof ProblemError);
  assert.deepEqual(problem.errors.map((e) => e.pointer), ['/data/117/user'], 'pointers count from failedAt');
  assert.equal(env.sent.length, 2, 'the third chunk was not sent');
  const stored = await storedGroups(env);
  assert.equal(stored.length, 200, 'the first chunk stays written, the second is not');
});

test('bulkUpsertInChunks refuses a size outside 1..200 before sending', async (t) => {
  const env = await startClientServer(t);
  for (const size of [0, 201, 1.5, Number.NaN]) {
    await assert.rejects(env.client().attributions.bulkUpsertInChunks(monthlyItems(3, 3), { size }), /size must be an integer from 1 to 200/);
  }
  assert.equal(env.sent.length, 0);
});
