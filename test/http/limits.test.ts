import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_LIMITS, type Limits } from '../../src/http/limits.js';
import { assertConforms } from '../support/contract.js';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { startTestServer } from '../support/harness.js';
import { captureLogs } from '../support/logCapture.js';
import { openSocket, parseAnswer, parseAnswers, rawExchange, readUntilClosed } from '../support/rawHttp.js';
import { until } from '../support/until.js';

async function serve(t: TestContext, limits: Partial<Limits> = {}, records = 25) {
  let fixture!: Fixture;
  const logs = captureLogs();
  const server = await startTestServer(t, { ...limits, logger: logs.logger }, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme', records });
  });
  return { server, key: fixture.key, logs };
}

/** A refusal read off a bare socket, checked against the contract as if for `path`. */
function assertRefusal(answer: ReturnType<typeof parseAnswer>, status: number, path = '/not-an-operation') {
  assert.equal(answer.status, status, answer.text);
  assertConforms('GET', path, answer.status, answer.headers, answer.text);
  assert.equal(answer.closed, true, 'the refusal closes the connection');
}

describe('limits of a request (configurable, safe defaults)', () => {
  test('a request target past the URL limit is a 414 problem; at the limit it is served', async (t) => {
    const { server, key } = await serve(t);
    const path = '/v1/reporting?limit=1&offset=';
    const atLimit = path + '0'.repeat(DEFAULT_LIMITS.maxUrlLength - path.length);
    assert.equal((await server.call('GET', atLimit, { key })).status, 200);
    const tooLong = await server.call('GET', `${atLimit}0`, { key });
    assert.equal(tooLong.status, 414);
    assert.equal(tooLong.body.detail, `The request target exceeds ${DEFAULT_LIMITS.maxUrlLength} bytes.`);
    const configured = await serve(t, { maxUrlLength: 64 });
    assert.equal((await configured.server.call('GET', `/${'b'.repeat(64)}`)).status, 414);
    assert.equal((await configured.server.call('GET', `/${'b'.repeat(62)}`)).status, 404);
  });

  test('headers past the header limit are a 431 problem, and the connection is closed', async (t) => {
    const { server } = await serve(t, { maxHeaderSize: 4096 });
    const refused = await server.call('GET', '/healthz', { headers: { 'X-Padding': 'p'.repeat(5000) } });
    assert.equal(refused.status, 431);
    assert.equal(refused.headers.get('connection'), 'close');
    assert.equal((await server.call('GET', '/healthz', { headers: { 'X-Padding': 'p'.repeat(3000) } })).status, 200);
    const defaults = await serve(t);
    const huge = await rawExchange(defaults.server.url, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: ${'p'.repeat(DEFAULT_LIMITS.maxHeaderSize)}\r\n\r\n`);
    assertRefusal(huge, 431, '/healthz');
  });

  test('what is not HTTP/1.1 is a 400 problem; a request without Host is served', async (t) => {
    const { server } = await serve(t);
    for (const garbage of ['HELLO\r\n\r\n', 'GET / HTTP/9.9\r\n\r\n', 'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n']) {
      assertRefusal(await rawExchange(server.url, garbage), 400);
    }
    // Garbage after a good request on one connection: the good one gets its own answer first.
    const socket = await openSocket(server.url);
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE\r\n\r\n');
    const { bytes, closed } = await readUntilClosed(socket, 3000);
    const { answers, truncated } = parseAnswers(bytes);
    assert.deepEqual([answers.map((answer) => answer.status), truncated, closed], [[200, 400], false, true]);
    assert.equal(answers[0]!.text, '{"status":"ok"}');
    const hostless = await rawExchange(server.url, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n');
    assert.equal(hostless.status, 200);
    assertConforms('GET', '/healthz', hostless.status, hostless.headers, hostless.text);
  });

  test('slow-header clients (slowloris) get a 408 at the headers timeout while others are served', async (t) => {
    const headersTimeoutMs = 600;
    const { server, key } = await serve(t, { headersTimeoutMs, requestTimeoutMs: 5000, idleTimeoutMs: 60_000 });
    const started = Date.now();
    const slowClients = await Promise.all(Array.from({ length: 100 }, () => openSocket(server.url)));
    const dripping = slowClients.map(async (socket) => {
      const answer = readUntilClosed(socket, 10_000);
      for (const byte of 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ') {
        if (socket.destroyed) break;
        socket.write(byte);
        await sleep(50);
      }
      // Keep dripping one header byte at a time: activity, but never the end of the headers.
      for (let i = 0; i < 400 && !socket.destroyed; i += 1) {
        socket.write('z');
        await sleep(50);
      }
      return answer;
    });
    const normal: number[] = [];
    // Others are served throughout the slow clients' wait, however slowly a loaded machine runs.
    while (normal.length < 3 || Date.now() - started < headersTimeoutMs * 2) {
      normal.push((await server.call('GET', '/v1/reporting?limit=5', { key })).status);
      await sleep(20);
    }
    const answers = await Promise.all(dripping);
    const closedAfter = Date.now() - started;
    assert.ok(normal.length >= 3 && normal.every((status) => status === 200), `others were served: ${normal.join(',')}`);
    for (const { bytes, closed } of answers) assertRefusal(parseAnswer(bytes, closed), 408);
    // Node's own check runs every 30 s unless told otherwise: a generous bound still tells them apart.
    assert.ok(closedAfter < headersTimeoutMs + 4000, `every slow client was cut within ${closedAfter} ms`);
  });

  test('a body that stops arriving gets a 408 at the request timeout and frees its slot', async (t) => {
    const { server, key } = await serve(t, { headersTimeoutMs: 300, requestTimeoutMs: 600, idleTimeoutMs: 60_000, maxConcurrent: 1 });
    const socket = await openSocket(server.url);
    socket.write(`PUT /v1/users/groups/bulk HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"da`);
    const { bytes, closed } = await readUntilClosed(socket, 5000);
    const answer = parseAnswer(bytes, closed);
    assert.equal(answer.status, 408);
    assertConforms('PUT', '/v1/users/groups/bulk', answer.status, answer.headers, answer.text);
    assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key })).status, 200, 'the only slot is free again');
  });

  test('an idle keep-alive connection is closed after the keep-alive timeout', async (t) => {
    const { server } = await serve(t, { keepAliveTimeoutMs: 300 });
    const socket = await openSocket(server.url);
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    const started = Date.now();
    const { bytes, closed } = await readUntilClosed(socket, 5000);
    assert.equal(parseAnswer(bytes, closed).status, 200);
    assert.equal(closed, true);
    const idle = Date.now() - started;
    assert.ok(idle >= 250 && idle < 4000, `closed after ${idle} ms`);
  });

  test('readers that never drain pipelined 2000-record pages hold one slot each, are cut at the idle timeout, and block no one', async (t) => {
    const maxConcurrent = 6;
    const idleTimeoutMs = 2000; // a loaded machine may leave a served connection without a byte for a while
    const { server, key, logs } = await serve(t, { maxConcurrent, idleTimeoutMs }, 2500);
    const page = `GET /v1/reporting?limit=2000 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`;
    const stalled = await Promise.all(Array.from({ length: maxConcurrent - 1 }, () => openSocket(server.url)));
    for (const socket of stalled) {
      socket.on('error', () => undefined); // cut off by the server below, with unread bytes: a reset
      socket.pause(); // reads nothing: the pages pile up in the kernel, then in the server
      socket.write(page.repeat(20));
    }
    t.after(() => stalled.forEach((socket) => socket.destroy()));
    // A page of each has begun: its first bytes reached the paused socket.
    await until('every stalled reader has a page in progress', () => stalled.every((socket) => socket.readableLength > 0));
    for (let i = 0; i < 10; i += 1) {
      const other = await server.call('GET', '/v1/reporting?limit=100', { key });
      assert.equal(other.status, 200, 'the one free slot serves everyone else');
    }
    // The page in progress of each; the requests queued behind it on its connection (which
    // Node 22 and later also close and so log) are told apart by `queued`.
    const aborted = () => logs.entries().filter((entry) => entry.msg === 'request' && entry.aborted);
    const cutOff = () => aborted().filter((entry) => !entry.queued);
    await until('each stalled reader is cut off', () => cutOff().length >= stalled.length);
    await sleep(idleTimeoutMs * 2); // a window in which nothing more may be cut
    const cut = cutOff();
    assert.equal(cut.length, stalled.length, 'each stalled reader was cut off once, at its one page in progress');
    for (const entry of cut) assert.ok(entry.durationMs >= idleTimeoutMs, `cut after ${entry.durationMs} ms`);
    for (const entry of aborted().filter((line) => line.queued)) assert.equal(entry.path, '/v1/reporting', 'a queued page of a stalled reader');
    const burst = await Promise.all(Array.from({ length: maxConcurrent }, () => server.call('GET', '/v1/reporting?limit=1', { key })));
    assert.deepEqual(burst.map((response) => response.status), Array(maxConcurrent).fill(200), 'every slot came back');
    await Promise.all(stalled.filter((socket) => !socket.destroyed).map((socket) => (socket.destroy(), once(socket, 'close'))));
  });
});
