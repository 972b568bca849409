import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { assertConforms } from '../support/contract.js';
import { openSocket, parseAnswers } from '../support/rawHttp.js';
import { LINGER_BYTES } from '../../src/http/linger.js';

/**
 * A body far over the limit is answered 413, and the answer must reach a client that writes its
 * whole body before it reads (as many do): the server reads the rest of the body and throws it
 * away, within bounds, instead of closing on unread bytes (which the kernel answers with a
 * reset). Before this, such a client stalled once the socket buffers were full and then saw a
 * reset, never the 413.
 */

const MiB = 1024 * 1024;

/** Writes a PUT of `bodyBytes` in full, then reads; what it read, and whether the server stopped reading or cut it. */
async function putThenRead(
  server: TestServer,
  key: string,
  bodyBytes: number,
  untilCut = false,
): Promise<{ bytes: Buffer; written: number; cut: boolean; stalled: boolean }> {
  const socket = await openSocket(server.url);
  const chunks: Buffer[] = [];
  let cut = false;
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => (cut = true));
  socket.on('close', () => (cut = true));
  socket.write(
    `PUT /v1/users/groups/bulk HTTP/1.1\r\nHost: test\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${bodyBytes}\r\n\r\n`,
  );
  const chunk = Buffer.alloc(256 * 1024, 'a');
  let written = 0;
  let stalled = false;
  const closed = new Promise<boolean>((resolve) => socket.once('close', () => resolve(false)));
  while (written < bodyBytes && !cut) {
    const part = chunk.subarray(0, Math.min(chunk.length, bodyBytes - written));
    written += part.length;
    if (socket.write(part)) continue;
    // A server that stopped reading never drains the socket: 20 s without a drain says so (a
    // loaded machine may take seconds to read the buffers' worth). A cut ends the wait at once.
    let timer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      new Promise<boolean>((resolve) => socket.once('drain', () => resolve(true))),
      closed,
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 20_000))),
    ]);
    clearTimeout(timer);
    if (!drained && !cut) {
      stalled = true;
      break;
    }
  }
  // Then read: the whole answer (and, with `untilCut`, the server's cut), within a deadline.
  const deadline = Date.now() + 20_000;
  const waiting = () => (untilCut ? !cut : !cut && !parseAnswers(Buffer.concat(chunks)).answers.length);
  while (waiting() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  socket.destroy();
  return { bytes: Buffer.concat(chunks), written, cut, stalled };
}

async function serverWithKey(t: Parameters<typeof startTestServer>[0]): Promise<{ server: TestServer; fixture: Fixture }> {
  let fixture!: Fixture;
  const server = await startTestServer(t, {}, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme', users: 3 });
  });
  return { server, fixture };
}

describe('413 with a lingering close', () => {
  test('clients that write a 16 MiB body before reading always read the 413 problem, eight at a time', async (t) => {
    const { server, fixture } = await serverWithKey(t);
    for (let round = 0; round < 2; round += 1) {
      const results = await Promise.all(Array.from({ length: 8 }, () => putThenRead(server, fixture.key, 16 * MiB)));
      for (const [i, result] of results.entries()) {
        const what = `round ${round}, client ${i}`;
        assert.equal(result.stalled, false, `${what}: the server stopped reading the body`);
        assert.equal(result.written, 16 * MiB, `${what}: the whole body was sent`);
        const [answer] = parseAnswers(result.bytes).answers;
        assert.ok(answer, `${what}: no answer read`);
        assert.equal(answer.status, 413, what);
        const body = assertConforms('PUT', '/v1/users/groups/bulk', 413, answer.headers, answer.text) as { status: number };
        assert.equal(body.status, 413);
      }
    }
  });

  test('a body that goes on past the bound is cut, after its answer was sent', async (t) => {
    const { server, fixture } = await serverWithKey(t);
    // Four times the bound: the cut comes once the server has thrown away the bound's worth (it
    // looks every 50 ms, so a little more on a busy machine), long before all of it.
    const result = await putThenRead(server, fixture.key, 4 * LINGER_BYTES, true);
    assert.equal(result.cut, true, 'the connection was cut');
    assert.ok(result.written < 4 * LINGER_BYTES, 'before the whole body was sent');
    assert.equal(parseAnswers(result.bytes).answers[0]?.status, 413, 'the 413 was sent first');
  });
});
