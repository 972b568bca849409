import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { test, type TestContext } from 'node:test';
import { createClient, ProblemError } from '../../src/client/index.js';
import { retryAfterMs } from '../../src/client/retry.js';
import { openSocket } from '../support/rawHttp.js';
import { collect, startClientServer, type ClientServer } from './clientServer.js';
import { until } from '../support/until.js';

/**
 * Retries. A real `503` comes from the real server run with `maxConcurrent: 1` while a
 * half-sent PUT holds the only slot; the slot is let go (the rest of the body is sent, and
 * answered with a 400) as soon as the client has seen its `503`, so the retry after
 * `Retry-After: 1` is answered. A `429` (which this server never
 * sends) and cut connections come from a small front on loopback that answers or cuts the
 * requests it is told to and passes the others to the real server unchanged (Host included,
 * so that `next` names the front).
 */
test('Retry-After values: delay seconds or an HTTP date; anything else is unreadable', async (t) => {
  const now = Date.parse('2026-11-22T10:00:00Z');
  const cases: [string, { given: string | null; want: number | undefined }][] = [
    ['seconds', { given: '1', want: 1000 }],
    ['zero', { given: '0', want: 0 }],
    ['spaces around', { given: ' 120 ', want: 120_000 }],
    ['an HTTP date', { given: 'Sun, 22 Nov 2026 10:00:03 GMT', want: 3000 }],
    ['a past date', { given: 'Sun, 22 Nov 2026 09:00:00 GMT', want: 0 }],
    ['absent', { given: null, want: undefined }],
    ['negative', { given: '-1', want: undefined }],
    ['fractional', { given: '1.5', want: undefined }],
    ['words', { given: 'soon', want: undefined }],
  ];
  for (const [name, { given, want }] of cases) await t.test(name, () => assert.equal(retryAfterMs(given, now), want));
});

test('a retry policy that cannot be followed is refused when the client is made, naming the option', () => {
  const client = (retry: Record<string, number>) => () => createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k', retry });
  const refused: [Record<string, number>, RegExp][] = [
    [{ attempts: 0 }, /retry\.attempts must be an integer of at least 1 \(got 0\)/],
    [{ attempts: 1.5 }, /retry\.attempts/],
    [{ budgetMs: -1 }, /retry\.budgetMs must be a number of at least 0 \(got -1\)/],
    [{ backoffMs: Number.NaN }, /retry\.backoffMs/],
  ];
  for (const [retry, message] of refused) assert.throws(client(retry), (error: unknown) => error instanceof RangeError && message.test(error.message), JSON.stringify(retry));
  assert.doesNotThrow(client({ attempts: 1, budgetMs: 0, backoffMs: 0 }));
});

/** The only slot of a `maxConcurrent: 1` server, held by a PUT whose body never finishes. */
async function holdTheSlot(env: ClientServer) {
  const socket = await openSocket(env.server.url);
  socket.on('error', () => undefined);
  socket.write(`PUT /v1/users/groups/bulk HTTP/1.1\r\nHost: x\r\nX-API-Key: ${env.key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"da`);
  await until('the PUT is admitted', () => env.server.requestsInProgress() === 1);
  return { release: () => release(socket) };
}

/** Sends the rest of the body: the PUT is answered (400, not JSON) and its slot comes back. */
function release(socket: Socket): void {
  if (socket.writableEnded) return;
  socket.once('data', () => socket.end());
  socket.write('x'.repeat(96));
}

/** A fetch that lets the slot go once the client has received a 503. */
const releasingOn503 = (slot: { release(): void }) => async (request: Request) => {
  const response = await fetch(request);
  if (response.status === 503) slot.release();
  return response;
};

test('a real 503: GETs wait the Retry-After it gives, then go on', async (t) => {
  const env = await startClientServer(t, { records: 25, server: { maxConcurrent: 1 } });
  const slot = await holdTheSlot(env);
  const records = await collect(env.client({ fetch: releasingOn503(slot) }).reporting.records({ limit: 10 }));
  assert.equal(records.length, 25);
  assert.deepEqual(env.sent.map((request) => request.status), [503, 200, 200, 200]);
  assert.equal(env.sent[0]!.retryAfter, '1');
  const waited = env.sent[1]!.at - env.sent[0]!.at;
  assert.ok(waited >= 1000 && waited < 2000, `the retry came ${waited} ms after the first send`);
});

test('a real 503 on a PUT: not retried unless the caller asks', async (t) => {
  const env = await startClientServer(t, { users: 3, server: { maxConcurrent: 1 } });
  const item = { user: 'user1@acme.example', group_dimension: 'region', group: 'EMEA', start_date: '2026-01', end_date: null };
  const cases: [string, { client: object; call: object; want: (number | 'thrown')[] }][] = [
    ['by default', { client: {}, call: {}, want: [503, 'thrown'] }],
    ['retry: true on the call', { client: {}, call: { retry: true }, want: [503, 200] }],
    ['retry.writes on the client', { client: { retry: { writes: true } }, call: {}, want: [503, 200] }],
    ['retry.writes on the client, retry: false on the call', { client: { retry: { writes: true } }, call: { retry: false }, want: [503, 'thrown'] }],
  ];
  for (const [name, { client, call, want }] of cases) {
    const slot = await holdTheSlot(env);
    env.sent.length = 0;
    const outcome = await env
      .client({ ...client, fetch: releasingOn503(slot) })
      .attributions.bulkUpsert([item], call)
      .then(
        () => 'written',
        (error: unknown) => (error instanceof ProblemError && error.status === 503 ? 'thrown' : error),
      );
    assert.deepEqual([...env.sent.map((request) => request.status), ...(outcome === 'written' ? [] : [outcome])], want, name);
  }
});

test('a Retry-After past the budget is not waited for: the 503 is thrown at once', async (t) => {
  const env = await startClientServer(t, { server: { maxConcurrent: 1 } });
  const slot = await holdTheSlot(env);
  const started = Date.now();
  const error = await collect(env.client({ retry: { budgetMs: 500 } }).reporting.records()).catch((e: unknown) => e);
  slot.release();
  assert.ok(error instanceof ProblemError && error.status === 503, String(error));
  assert.equal(error.requestId, env.sent[0]!.requestId);
  assert.equal(env.sent.length, 1);
  assert.ok(Date.now() - started < 500, 'no wait');
});

type FrontAnswer = 'pass' | 'cut' | { status: number; retryAfter?: string; body: string; reason?: string };

/** A loopback front of the real server: `decide` sees each request (with its number, from 1) and answers, cuts, or passes it on. */
async function front(t: TestContext, env: ClientServer, decide: (request: IncomingMessage, n: number) => FrontAnswer) {
  const target = new URL(env.server.url);
  const seen: string[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    seen.push(request.method!);
    const answer = decide(request, seen.length);
    if (answer === 'cut') return void request.socket.destroy();
    if (answer !== 'pass') {
      const headers: Record<string, string> = { 'Content-Type': 'text/plain' };
      if (answer.retryAfter !== undefined) headers['Retry-After'] = answer.retryAfter;
      return void (answer.reason === undefined ? response.writeHead(answer.status, headers) : response.writeHead(answer.status, answer.reason, headers)).end(answer.body);
    }
    const upstream = httpRequest({ hostname: target.hostname, port: target.port, method: request.method, path: request.url, headers: request.headers }, (answered) => {
      response.writeHead(answered.statusCode!, answered.headers);
      answered.pipe(response);
    });
    request.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

test('429 honours Retry-After like 503', async (t) => {
  const env = await startClientServer(t, { records: 25 });
  const proxy = await front(t, env, (_, n) => (n === 2 ? { status: 429, retryAfter: '1', body: 'slow down' } : 'pass'));
  const records = await collect(env.client({ baseUrl: proxy.url }).reporting.records({ limit: 10 }));
  assert.deepEqual(records.map((record) => record.id), Array.from({ length: 25 }, (_, i) => `acme-r${i}`));
  assert.deepEqual(env.sent.map((request) => request.status), [200, 429, 200, 200]);
  const waited = env.sent[2]!.at - env.sent[1]!.at;
  assert.ok(waited >= 1000 && waited < 2000, `the retry came ${waited} ms later`);
});

test('network errors: GETs are retried with a backoff, a PUT is not', async (t) => {
  const env = await startClientServer(t, { records: 25 });
  const cutFirstTwo = await front(t, env, (_, n) => (n <= 2 ? 'cut' : 'pass'));
  const client = env.client({ baseUrl: cutFirstTwo.url, retry: { backoffMs: 50 } });
  assert.equal((await collect(client.reporting.records())).length, 25);
  assert.deepEqual(env.sent.map((request) => request.status), ['network error', 'network error', 200]);
  assert.ok(env.sent[2]!.at - env.sent[1]!.at >= 100, 'the second wait is twice the first');

  const cutAll = await front(t, env, () => 'cut');
  env.sent.length = 0;
  await assert.rejects(collect(env.client({ baseUrl: cutAll.url, retry: { backoffMs: 10, attempts: 3 } }).reporting.records()), TypeError);
  assert.equal(env.sent.length, 3, 'at most `attempts` sends');
  await assert.rejects(env.client({ baseUrl: cutAll.url, retry: { backoffMs: 10 } }).attributions.bulkUpsert([{ user: 'user0@acme.example', manager: 'user1@acme.example' }]), TypeError);
  assert.deepEqual(cutAll.seen.slice(3), ['PUT'], 'the PUT was sent once');
});

test('retries end after `attempts` sends; an answer that is not a problem still becomes a ProblemError', async (t) => {
  const env = await startClientServer(t);
  const busy = await front(t, env, () => ({ status: 503, retryAfter: '0', body: 'busy, try later' }));
  const error = await collect(env.client({ baseUrl: busy.url }).reporting.records()).catch((e: unknown) => e);
  assert.equal(busy.seen.length, 4, 'the default is 4 sends');
  assert.ok(error instanceof ProblemError);
  assert.deepEqual([error.status, error.type, error.title, error.detail, error.errors], [503, 'about:blank', 'Service Unavailable', 'busy, try later', []]);
  await assert.rejects(collect(env.client({ baseUrl: busy.url, retry: false }).reporting.records()), ProblemError);
  assert.equal(busy.seen.length, 5, 'retry: false sends once');
});

test('an answer that is not a problem, from something between client and server: titled by its status line, its text cut at 500 characters', async (t) => {
  const env = await startClientServer(t);
  const gateway = await front(t, env, () => ({ status: 502, reason: '', body: 'x'.repeat(600) }));
  const error = await collect(env.client({ baseUrl: gateway.url, retry: false }).reporting.records()).catch((e: unknown) => e);
  assert.ok(error instanceof ProblemError, String(error));
  assert.deepEqual([error.status, error.type, error.title, error.detail], [502, 'about:blank', 'HTTP 502', `${'x'.repeat(500)}…`]);
});

test('an abort ends a Retry-After wait at once', async (t) => {
  const env = await startClientServer(t);
  const slow = await front(t, env, () => ({ status: 429, retryAfter: '10', body: '' }));
  const controller = new AbortController();
  const reason = new Error('caller gave up');
  const records = collect(env.client({ baseUrl: slow.url }).reporting.records({ signal: controller.signal })).then(
    () => assert.fail('the walk ended without the abort'),
    (error: unknown) => error,
  );
  await until('the 429 is answered', () => slow.seen.length === 1);
  const aborted = Date.now();
  controller.abort(reason);
  assert.equal(await records, reason);
  assert.ok(Date.now() - aborted < 1000, 'not 10 s');
  assert.equal(slow.seen.length, 1);
});
