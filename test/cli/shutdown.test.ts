import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { connect } from 'node:net';
import { describe, test, type TestContext } from 'node:test';
import { openDatabase } from '../../src/store/sqlite/db.js';
import { fixtureFile } from '../support/fixture.js';
import { exchange } from '../support/harness.js';
import { openSocket, parseAnswers, readUntilClosed } from '../support/rawHttp.js';
import { startServe } from '../support/serveProcess.js';
import { databaseFor, onlyOn } from '../support/testDatabases.js';
import { until } from '../support/until.js';

/** A file with a tenant of 2500 records, served by `compdata serve` with `args`. */
async function serveFixture(t: TestContext, args: string[] = []) {
  const dbPath = await databaseFor(t);
  const { key } = await fixtureFile(dbPath, { tenant: 'acme', users: 20, records: 2500 });
  return { dbPath, key, server: await startServe(t, dbPath, args) };
}


/** The error of a connection to `url` that was refused, or false when it was accepted (and closed). */
function connectionRefusal(url: string): Promise<Error | false> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', (error: Error) => resolve(error));
  });
}

const pageRequest = (key: string) => `GET /v1/reporting?limit=2000 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`;

describe('graceful shutdown on SIGTERM', { concurrency: true }, () => {
  test('a page being streamed to a slow reader is finished; new connections are refused; exit 0', async (t) => {
    const { key, server } = await serveFixture(t);
    const reader = await openSocket(server.url);
    reader.pause(); // reads nothing yet: the pages back up until one is held in the server
    reader.write(pageRequest(key).repeat(6));
    // The first page has begun (its first bytes reached the paused socket): it is in flight.
    await until('the first page has begun', () => reader.readableLength > 0);
    server.child.kill('SIGTERM');
    // The listener closes right after the server says it is stopping: from then on (a close
    // may take a moment on a loaded machine) a new connection is refused.
    await until('the server says it is stopping', () => server.logs().some((line) => line.msg === 'stopping: finishing the requests in flight'));
    // Probed by connecting alone: a connection still accepted is closed at once, with no request
    // (which would add a line to the log).
    const refused = await until('a new connection is refused', () => connectionRefusal(server.url));
    assert.match(String(refused), /ECONNREFUSED/, 'no new connection is accepted');
    const received = readUntilClosed(reader, 20_000);
    reader.resume();
    const { bytes, closed } = await received;
    const { answers, truncated } = parseAnswers(bytes);
    assert.equal(closed, true, 'the server closed the connection after the answer in flight');
    assert.equal(truncated, false, 'no answer was cut off');
    assert.ok(answers.length >= 1, 'the page in flight was sent');
    for (const answer of answers) assert.deepEqual([answer.status, JSON.parse(answer.text).count], [200, 2000]);
    const { code } = await server.exited;
    assert.equal(code, 0);
    const messages = server.logs().map((line) => line.msg);
    const stopping = messages.indexOf('stopping: finishing the requests in flight');
    assert.ok(stopping >= 0 && messages.indexOf('request', stopping) > stopping, 'a page finished after the signal');
    const logs = JSON.stringify(server.logs());
    assert.equal(messages.at(-1), 'stopped', logs);
    assert.ok(server.logs().every((line) => !line.aborted), `nothing was cut off: ${logs}`);
  });

  // SQLite only: on PostgreSQL the first four pages went whole into the socket's buffers and no
  // further pipelined request was read, so no page was left in flight to cut (seen in every
  // run). The shutdown timeout itself is the HTTP layer's, the same on both engines.
  test('a reader that never reads is cut at the shutdown timeout, and the process still exits 0', { skip: onlyOn('sqlite') }, async (t) => {
    const shutdownTimeoutMs = 800;
    const { key, server } = await serveFixture(t, ['--shutdown-timeout', String(shutdownTimeoutMs), '--idle-timeout', '60000']);
    const stalled = await openSocket(server.url);
    t.after(() => stalled.destroy());
    stalled.pause();
    // Far more pages (about 1 MB each) than the socket buffers of both ends hold, so that one is
    // still in flight at SIGTERM however large the kernel made them.
    stalled.write(pageRequest(key).repeat(40));
    await until('a page is in flight', () => stalled.readableLength > 0);
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    const { code } = await server.exited;
    const took = Date.now() - signalled;
    assert.equal(code, 0);
    assert.ok(took >= shutdownTimeoutMs && took < shutdownTimeoutMs + 5000, `exited ${took} ms after SIGTERM; received ${stalled.readableLength}: ${JSON.stringify(server.logs())}`);
    assert.ok(server.logs().some((line) => line.msg === 'request' && line.aborted), 'the stalled page was cut off');
  });

  test('the WAL is checkpointed into the database file and truncated on the way out', { skip: onlyOn('sqlite') }, async (t) => {
    const { dbPath, key, server } = await serveFixture(t);
    const watcher = openDatabase(dbPath); // keeps the file open, so SQLite does not delete the WAL itself
    t.after(() => watcher.close());
    for (let i = 0; i < 20; i += 1) {
      const item = { user: `user${i}@acme.example`, group_dimension: 'segment', group: `S${i}`, start_date: '2026-01' };
      assert.equal((await exchange(server.url, 'PUT', '/v1/users/groups/bulk', { key, json: { data: [item] } })).status, 200);
    }
    assert.ok(statSync(`${dbPath}-wal`).size > 0, 'the writes went to the WAL');
    server.child.kill('SIGTERM');
    assert.equal((await server.exited).code, 0);
    assert.equal(statSync(`${dbPath}-wal`).size, 0, 'the WAL was truncated');
    const stored = watcher.prepare(`SELECT count(*) FROM group_attributions`).pluck().get();
    assert.ok(Number(stored) >= 20);
  });
});
