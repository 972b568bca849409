import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { describe, test, type TestContext } from 'node:test';
import { createClient } from '../../src/client/index.js';
import { parseFaultSpec } from '../../src/http/faultSpec.js';
import { SLOW_PAUSE_MS, SLOW_PIECE_BYTES } from '../../src/http/faults.js';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { captureLogs } from '../support/logCapture.js';
import { runInProcess } from '../cli/cliProcess.js';

/**
 * `serve --faults`: each kind of fault at 100% is seen by a real client (node:http, through
 * the harness that holds every answer to the contract, or the repository's own client), 0%
 * changes nothing, and a seed gives the same faults run after run.
 */
const PAGE = '/v1/reporting?limit=25';
const ITEM = { user: 'user1@acme.example', group_dimension: 'segment', group: 'SMB', start_date: '2026-01' };

async function serverWith(t: TestContext, faults?: string) {
  const logs = captureLogs('info');
  let fixture!: Fixture;
  const server = await startTestServer(t, { logger: logs.logger, ...(faults !== undefined && { faults: parseFaultSpec(faults) }) }, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme' });
  });
  const faultLines = () => logs.entries().filter((line) => line.msg === 'fault injected');
  return { server, key: fixture.key, faultLines };
}

const segmentRows = async (server: TestServer) => Number(await server.sql.value(`SELECT count(*) FROM group_attributions WHERE group_pk IN (SELECT pk FROM groups WHERE name = 'SMB')`));

/** A GET over node:http that keeps what arrived before the connection broke. */
function getRaw(url: string, path: string, key: string) {
  return new Promise<{ status?: number; headers?: IncomingHttpHeaders; bytes: Buffer; error?: NodeJS.ErrnoException; complete: boolean }>((resolve) => {
    const chunks: Buffer[] = [];
    let response: IncomingMessage | undefined;
    const settle = (error?: NodeJS.ErrnoException) =>
      resolve({ status: response?.statusCode, headers: response?.headers, bytes: Buffer.concat(chunks), error, complete: response?.complete ?? false });
    const { hostname, port } = new URL(url);
    const request = httpRequest({ hostname, port, path, headers: { 'X-API-Key': key } }, (answer) => {
      response = answer;
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => settle());
      answer.on('error', settle);
    });
    request.on('error', settle);
    request.end();
  });
}

describe('faults on demand', { concurrency: true }, () => {
  test('503=100%: every API answer is a 503 problem with Retry-After, nothing is written; /healthz says faults are on', async (t) => {
    const { server, key, faultLines } = await serverWith(t, '503=100%');
    const page = await server.call('GET', PAGE, { key });
    assert.equal(page.status, 503);
    assert.equal(page.headers.get('retry-after'), '1');
    assert.equal(page.headers.get('compdata-fault'), '503');
    assert.equal(page.body.type, 'urn:compdata:problem:service-unavailable');
    const put = await server.call('PUT', '/v1/users/groups/bulk', { key, json: { data: [ITEM] } });
    assert.equal(put.status, 503);
    assert.equal(await segmentRows(server), 0);

    const health = await server.call('GET', '/healthz');
    assert.deepEqual([health.status, health.body, health.headers.get('compdata-fault')], [200, { status: 'ok', faults: '503=100%' }, null]);
    assert.equal((await server.call('GET', '/openapi.json')).status, 200);
    assert.deepEqual(
      faultLines().map((line) => [line.reqId, line.fault]),
      [page, put].map((answer) => [answer.headers.get('x-request-id'), '503']),
    );
  });

  test('reset=100%: the answer begins, breaks off midway, and the connection is reset', async (t) => {
    const { server, key, faultLines } = await serverWith(t, 'reset=100%');
    const plain = await serverWith(t);
    const whole = (await getRaw(plain.server.url, PAGE, plain.key)).bytes; // the last page: no `next` naming the port
    const cut = await getRaw(server.url, PAGE, key);
    assert.equal(cut.status, 200);
    assert.equal(cut.headers?.['compdata-fault'], 'reset');
    assert.equal(cut.complete, false);
    assert.equal(cut.error?.code, 'ECONNRESET', String(cut.error));
    assert.ok(cut.bytes.length > 0 && cut.bytes.length < whole.length, `${cut.bytes.length} of ${whole.length} bytes arrived`);
    assert.ok(whole.subarray(0, cut.bytes.length).equals(cut.bytes), 'what arrived is the beginning of the page');
    assert.deepEqual(faultLines().map((line) => line.fault), ['reset']);
  });

  test('slow=100%: the answer is whole, trickled a piece at a time', async (t) => {
    const { server, key, faultLines } = await serverWith(t, 'slow=100%');
    const started = performance.now();
    const page = await server.call('GET', PAGE, { key });
    const elapsed = performance.now() - started;
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('compdata-fault'), 'slow');
    assert.equal(page.body.count, 25);
    const pieces = Math.ceil(Buffer.byteLength(page.text) / SLOW_PIECE_BYTES);
    assert.ok(pieces >= 3, `${pieces} pieces`);
    // Each piece after the first waits its pause: a lower bound that timers guarantee.
    assert.ok(elapsed >= (pieces - 1) * SLOW_PAUSE_MS * 0.9, `${pieces} pieces in ${elapsed.toFixed(0)} ms`);
    assert.deepEqual(faultLines().map((line) => line.fault), ['slow']);
  });

  test('the faults apply to answers of every kind: a count (text), a problem, a HEAD (no body)', async (t) => {
    const slow = await serverWith(t, 'slow=100%');
    const count = await slow.server.call('GET', '/v1/reporting?limit=0', { key: slow.key });
    assert.equal(count.status, 200);
    assert.equal(count.headers.get('compdata-fault'), 'slow');
    assert.equal(count.body.count, 25);
    const missing = await slow.server.call('GET', '/v1/tables/nope/records', { key: slow.key });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('compdata-fault'), 'slow');
    assert.equal(missing.body.type, 'urn:compdata:problem:not-found');
    const head = await slow.server.call('HEAD', PAGE, { key: slow.key });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('compdata-fault'), 'slow');
    assert.equal(head.text, '');
    const fields = await slow.server.call('GET', '/v1/reporting/fields', { key: slow.key });
    assert.equal(fields.status, 200);
    assert.equal(fields.headers.get('compdata-fault'), 'slow');
    assert.ok(fields.body.count > 0, 'the field listing (an object the handler answers) arrives whole');

    const reset = await serverWith(t, 'reset=100%');
    for (const path of ['/v1/reporting?limit=0', '/v1/tables/nope/records']) {
      const cut = await getRaw(reset.server.url, path, reset.key);
      assert.equal(cut.headers?.['compdata-fault'], 'reset', path);
      assert.equal(cut.complete, false, path);
      assert.equal(cut.error?.code, 'ECONNRESET', `${path}: ${String(cut.error)}`);
    }
    // A 304 has no body: its head is sent, then the connection is reset.
    const etag = (await getRaw(reset.server.url, PAGE, reset.key)).headers?.etag;
    const notModified = await new Promise<{ status?: number; error?: NodeJS.ErrnoException }>((resolve) => {
      const { hostname, port } = new URL(reset.server.url);
      const request = httpRequest({ hostname, port, path: PAGE, headers: { 'X-API-Key': reset.key, 'If-None-Match': String(etag) } }, (answer) => {
        answer.resume();
        answer.on('end', () => resolve({ status: answer.statusCode }));
        answer.on('error', (error) => resolve({ status: answer.statusCode, error }));
      });
      request.on('error', (error) => resolve({ error }));
      request.end();
    });
    assert.equal(notModified.status, 304, String(notModified.error));
    assert.deepEqual(slow.faultLines().map((line) => line.fault), ['slow', 'slow', 'slow', 'slow']);
  });

  test('latency: every API answer is held back, and says how long', async (t) => {
    const { server, key, faultLines } = await serverWith(t, 'latency=300ms');
    const started = performance.now();
    const page = await server.call('GET', PAGE, { key });
    assert.ok(performance.now() - started >= 290);
    assert.deepEqual([page.status, page.headers.get('compdata-fault')], [200, 'latency=300ms']);
    const ranged = await serverWith(t, 'latency=20-40ms,slow=100%');
    const both = await ranged.server.call('GET', PAGE, { key: ranged.key });
    assert.match(both.headers.get('compdata-fault')!, /^latency=(2\d|3\d|40)ms, slow$/);
    assert.equal(faultLines().length, 1);
  });

  test('0% changes nothing: the same answers as a server without faults, no header, no fault logged', async (t) => {
    const [off, zero] = await Promise.all([serverWith(t), serverWith(t, '503=0%,reset=0%,slow=0%')]);
    for (let i = 0; i < 20; i += 1) {
      const [a, b] = await Promise.all([off.server.call('GET', PAGE, { key: off.key }), zero.server.call('GET', PAGE, { key: zero.key })]);
      assert.deepEqual([b.status, b.text, b.headers.get('compdata-fault')], [a.status, a.text, null]);
    }
    const put = await zero.server.call('PUT', '/v1/users/groups/bulk', { key: zero.key, json: { data: [ITEM] } });
    assert.deepEqual([put.status, put.headers.get('compdata-fault'), await segmentRows(zero.server)], [200, null, 1]);
    assert.deepEqual(zero.faultLines(), []);
    assert.deepEqual((await zero.server.call('GET', '/healthz')).body, { status: 'ok', faults: '503=0%,reset=0%,slow=0%' });
    assert.deepEqual((await off.server.call('GET', '/healthz')).body, { status: 'ok' });
  });

  test('a seed gives the same faults run after run', async (t) => {
    const statuses = async () => {
      const { server, key } = await serverWith(t, '503=50%,seed=7');
      const seen: number[] = [];
      for (let i = 0; i < 30; i += 1) seen.push((await server.call('GET', '/v1/reporting?limit=1', { key })).status);
      return seen;
    };
    const [first, second] = await Promise.all([statuses(), statuses()]);
    assert.deepEqual(first, second);
    assert.ok(first.includes(200) && first.includes(503), first.join(' '));
  });

  test("the repository's client gets every record through 503s and resets, by its retries", async (t) => {
    const { server, key, faultLines } = await serverWith(t, '503=30%,reset=30%,seed=23');
    const client = createClient({ baseUrl: server.url, apiKey: key, retry: { attempts: 10 } });
    const ids: string[] = [];
    for await (const record of client.reporting.records({ limit: 10 })) ids.push(record.id);
    assert.deepEqual(ids, Array.from({ length: 25 }, (_, i) => `acme-r${i}`));
    const faults = faultLines().map((line) => line.fault as string);
    assert.ok(faults.includes('503') && faults.includes('reset'), faults.join(' '));
  });

  test('serve refuses a spec it cannot read: exit 2, one line', async () => {
    // Refused before anything is served: the command line in the test's process (inProcess.test.ts).
    const result = await runInProcess(['serve', '--db', 'unused.db', '--faults', 'latency=50-400ms,503=2']);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^error: option '--faults <spec>' argument 'latency=50-400ms,503=2' is invalid\. 503=2: must be a percentage [^\n]*\n$/);
  });
});
