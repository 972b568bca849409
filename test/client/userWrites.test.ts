import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contractDocument } from '../../src/http/document.js';
import { ARCHIVE_LIMIT, ProblemError, USERS_LIMIT } from '../../src/client/index.js';
import { collect, startClientServer } from './clientServer.js';

/**
 * `client.users.bulkUpsert`, `client.users.archive` and `client.managers.bulkUpsert` against a
 * real server: what they send, what they return, what is refused before sending, and a retry
 * made safe by an `Idempotency-Key`.
 */
test('the client limits are the contract maxItems of the bodies', () => {
  const schemas = (contractDocument().definition as any).components.schemas;
  assert.equal(USERS_LIMIT, schemas.UsersBulkPutBody.properties.data.maxItems);
  assert.equal(USERS_LIMIT, schemas.ManagersBulkPutBody.properties.data.maxItems);
  assert.equal(ARCHIVE_LIMIT, schemas.ArchiveBulkBody.properties.data.maxItems);
});

test('users, managers and archive: one request each, the answers typed; problems thrown', async (t) => {
  const env = await startClientServer(t, { users: 4 });
  const client = env.client();
  const users = await client.users.bulkUpsert([{ email: 'user1@acme.example', name: 'Renamed', tier: 'gold' }]);
  assert.equal(users.count, 1);
  assert.equal(users.data[0]!.name, 'Renamed');
  assert.equal(users.data[0]!.tier, 'gold');
  const managers = await client.managers.bulkUpsert([{ user: 'user1@acme.example', manager: 'user2@acme.example' }]);
  assert.deepEqual(managers.data, [{ user: 'user1@acme.example', manager: 'user2@acme.example', start_date: null, end_date: null }]);
  assert.equal((await collect(client.attributions.managers.records({ user: 'user1@acme.example' }))).length, 1);
  await client.users.archive([{ user: 'user3@acme.example', end_date: '2026-06' }]);
  const refused = await client.users.archive([{ user: 'user2@acme.example', end_date: '2026-06' }]).catch((e: unknown) => e);
  assert.ok(refused instanceof ProblemError && refused.status === 422, String(refused));
  assert.equal(refused.errors[0]!.pointer, '/data/0/user');
  assert.deepEqual(env.sent.map(({ method, url }) => `${method} ${url.slice(env.server.url.length)}`), [
    'PUT /v1/users/bulk',
    'PUT /v1/users/managers/bulk',
    'GET /v1/users/managers?user=user1%40acme.example',
    'DELETE /v1/users/archive/bulk',
    'DELETE /v1/users/archive/bulk',
  ]);
});

test('more items than a request takes are refused before anything is sent', async (t) => {
  const env = await startClientServer(t, { users: 2 });
  const client = env.client();
  const many = Array.from({ length: ARCHIVE_LIMIT + 1 }, () => ({ user: 'user0@acme.example', end_date: '2026-01' }));
  await assert.rejects(client.users.archive(many), /users\.archive sends at most 50 items/);
  await assert.rejects(client.users.bulkUpsert(Array.from({ length: USERS_LIMIT + 1 }, () => ({ email: 'user0@acme.example' }))), RangeError);
  assert.equal(env.sent.length, 0);
});

test('with an Idempotency-Key a write is retried after a 503, and written once', async (t) => {
  const env = await startClientServer(t, { users: 3 });
  let failFirst = true;
  let replayed: string | null = null;
  const client = env.client({
    retry: { backoffMs: 10 },
    fetch: async (request) => {
      if (!failFirst) {
        const answer = await fetch(request);
        replayed = answer.headers.get('Idempotent-Replayed');
        return answer;
      }
      failFirst = false;
      const written = await fetch(request); // written, but its answer is lost: the client sees a 503
      assert.equal(written.status, 200);
      return new Response(JSON.stringify({ type: 'about:blank', title: 'Service Unavailable', status: 503, detail: 'lost' }), {
        status: 503,
        headers: { 'Content-Type': 'application/problem+json', 'Retry-After': '0' },
      });
    },
  });
  const result = await client.users.bulkUpsert([{ email: 'user2@acme.example', role: 'Lead' }], { idempotencyKey: 'client-retry-1' });
  assert.equal(result.data[0]!.role, 'Lead');
  assert.deepEqual(env.sent.map((sent) => sent.status), [503, 200]);
  assert.equal(replayed, 'true', 'the retry wrote nothing: it got the first answer again');
});

test("the client sends the reference's shapes: a new user by e-mail alone, null fields, an archive item without end_date", async (t) => {
  const env = await startClientServer(t, { users: 4 });
  const client = env.client();
  const users = await client.users.bulkUpsert([{ email: 'new@acme.example' }, { email: 'user1@acme.example', role: null }]);
  assert.match(users.data[0]!.id, /^usr_[0-9a-f]{12}$/);
  assert.equal(users.data[1]!.role, '');
  await client.users.archive([{ user: 'user3@acme.example' }, { user: 'new@acme.example', end_date: '2026-06' }]);
});
