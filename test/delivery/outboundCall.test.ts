import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test, type TestContext } from 'node:test';
import { sendCall, type OutboundOptions } from '../../src/delivery/outboundCall.js';
import { until } from '../support/until.js';

interface Receiver {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** TCP connections accepted so far. */
  connections: () => number;
  /** Requests received so far, with their bodies. */
  received: { method: string; headers: IncomingMessage['headers']; body: string }[];
  /** Connections closed so far. */
  closed: () => number;
}

/** A real HTTP server on every loopback address (`::`, both families), answering with `answer`. */
async function receiver(t: TestContext, answer: (request: IncomingMessage, response: ServerResponse) => void): Promise<Receiver> {
  let connections = 0;
  let closed = 0;
  const received: Receiver['received'] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ method: request.method ?? '', headers: request.headers, body: Buffer.concat(chunks).toString() });
      answer(request, response);
    });
  });
  server.on('connection', (socket) => {
    connections++;
    socket.on('close', () => closed++);
  });
  server.listen(0, '::');
  await once(server, 'listening');
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, port, connections: () => connections, received, closed: () => closed };
}

const local: OutboundOptions = { timeoutMs: 10_000, allowPrivate: true, answerHeadBytes: 1024 };
const call = (url: string) => ({ url, headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' }, body: '{"type":"statement.sent_to_payroll"}' });

describe('sendCall against a real receiver', () => {
  test('a POST of the body with the headers; the answer\'s status and the head of its body, capped', async (t) => {
    const target = await receiver(t, (_request, response) => {
      response.writeHead(201, { 'content-type': 'text/plain' });
      response.end('x'.repeat(10_000));
    });
    const result = await sendCall(call(`${target.url}/hook?a=1`), { ...local, answerHeadBytes: 100 });
    assert.equal(result.outcome, 'answered');
    assert.deepEqual(result.outcome === 'answered' && [result.status, result.answerHead], [201, 'x'.repeat(100)]);
    assert.ok(result.durationMs >= 0);
    const [got] = target.received;
    assert.deepEqual([got?.method, got?.body, got?.headers['webhook-id'], got?.headers['content-type']], ['POST', call('').body, 'msg_1', 'application/json']);
    assert.equal(got?.headers['content-length'], String(Buffer.byteLength(call('').body)));
  });

  test('the answer is read up to the cap and no further: the connection is closed while the receiver still writes', async (t) => {
    let written = 0;
    const target = await receiver(t, (_request, response) => {
      response.writeHead(200);
      const more = () => {
        while (!response.destroyed && response.write(Buffer.alloc(16 * 1024, 'y'))) written += 16 * 1024;
        if (!response.destroyed) response.once('drain', more);
      };
      more();
    });
    const result = await sendCall(call(target.url), { ...local, answerHeadBytes: 64 });
    assert.deepEqual(result.outcome === 'answered' && [result.status, result.answerHead], [200, 'y'.repeat(64)]);
    await until('the receiver sees its connection closed', () => target.closed() === 1);
    assert.ok(written < 64 * 1024 * 1024, `${written} bytes written before the close`);
  });

  test('the head is decoded as UTF-8: a character cut by the cap is left out, bytes that are not UTF-8 become U+FFFD', async (t) => {
    const target = await receiver(t, (request, response) => response.end(request.url === '/bad' ? Buffer.from([0x61, 0xff, 0x62]) : 'ééé'));
    const cut = await sendCall(call(target.url), { ...local, answerHeadBytes: 5 });
    assert.equal(cut.outcome === 'answered' && cut.answerHead, 'éé');
    const bad = await sendCall(call(`${target.url}/bad`), local);
    assert.equal(bad.outcome === 'answered' && bad.answerHead, 'a\uFFFDb');
    const none = await sendCall(call(target.url), { ...local, answerHeadBytes: 0 });
    assert.deepEqual(none.outcome === 'answered' && [none.status, none.answerHead], [200, '']);
  });

  test('a receiver that never answers: a timeout covering the whole call', async (t) => {
    const target = await receiver(t, () => {});
    const result = await sendCall(call(target.url), { ...local, timeoutMs: 300 });
    assert.deepEqual([result.outcome, result.outcome === 'error' && result.error], ['error', 'timeout']);
    assert.ok(result.durationMs >= 295 && result.durationMs < 5_000, String(result.durationMs));
    await until('the receiver sees its connection closed', () => target.closed() === 1);
  });

  test('a redirect is not followed: the 302 is the answer, the server it points to gets nothing', async (t) => {
    const elsewhere = await receiver(t, (_request, response) => response.end('followed'));
    const target = await receiver(t, (_request, response) => {
      response.writeHead(302, { location: `${elsewhere.url}/elsewhere` });
      response.end('moved');
    });
    const result = await sendCall(call(target.url), local);
    assert.deepEqual(result.outcome === 'answered' && [result.status, result.answerHead], [302, 'moved']);
    assert.equal(elsewhere.connections(), 0);
  });

  test('private addresses refused without connecting, unless allowed; the check is on the address, not the spelling', async (t) => {
    const target = await receiver(t, (_request, response) => response.end('reached'));
    const loopbacks = [`http://127.0.0.1:${target.port}/`, `http://[::1]:${target.port}/`, `http://[::ffff:127.0.0.1]:${target.port}/`, `http://localhost:${target.port}/`, `http://2130706433:${target.port}/`];
    for (const url of [...loopbacks, 'http://169.254.169.254/latest/meta-data/', 'http://0.0.0.0:9/', 'https://[fd00::1]/', 'http://[fe80::1]/']) {
      const result = await sendCall(call(url), { ...local, allowPrivate: false });
      assert.equal(result.outcome, 'error', url);
      assert.match(result.outcome === 'error' ? result.error : '', /^refused: /, url);
    }
    assert.equal(target.connections(), 0);
    const localhost = await sendCall(call(`http://localhost:${target.port}/`), { ...local, allowPrivate: false });
    assert.match(localhost.outcome === 'error' ? localhost.error : '', /^refused: localhost resolves to a loopback address /);
    // The same URLs reach the receiver when private addresses are allowed: the refusal is what kept them out.
    for (const url of loopbacks) assert.equal((await sendCall(call(url), local)).outcome, 'answered', url);
    assert.equal(target.connections(), loopbacks.length);
  });

  test('other failures are errors that name what failed, never a header\'s value', async (t) => {
    const target = await receiver(t, () => {});
    const scheme = await sendCall(call('ftp://payroll.example.com/'), local);
    assert.equal(scheme.outcome === 'error' && scheme.error, 'refused: the scheme ftp: is neither http: nor https:');
    const notUrl = await sendCall(call('not a url'), local);
    assert.equal(notUrl.outcome === 'error' && notUrl.error, 'refused: not a URL');
    const badHeader = await sendCall({ ...call(target.url), headers: { 'x-webhook-secret': 'sekrit\r\nx-injected: 1' } }, local);
    assert.equal(badHeader.outcome === 'error' && badHeader.error, 'invalid request: ERR_INVALID_CHAR');
    assert.equal(target.connections(), 0);

    const gone = createServer().listen(0, '127.0.0.1');
    await once(gone, 'listening');
    const { port } = gone.address() as AddressInfo;
    await new Promise((resolve) => gone.close(resolve));
    const closedPort = await sendCall(call(`http://127.0.0.1:${port}/`), local);
    assert.equal(closedPort.outcome === 'error' && closedPort.error, 'connection failed: ECONNREFUSED');
  });
});
