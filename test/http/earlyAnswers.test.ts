import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { describe, test } from 'node:test';
import { startChildTestServer } from '../support/childServer.js';
import { assertConforms } from '../support/contract.js';
import { buildFixture } from '../support/fixture.js';
import { shared } from '../support/harness.js';

/**
 * Answers given before a body is read (`413` on a declared length past the limit, `401`, `403`)
 * reach clients that write their whole body before they read: Node's `http.request` without an
 * agent (it asks `Connection: close`), `fetch` and `curl`. Closing on unread bytes makes the
 * kernel send a reset, and such a client saw `EPIPE` instead of the answer (every try, at this
 * size, before the fix). The push limit is lowered so that each try is cheap; Node's client,
 * the one that lost answers, makes 200 tries per size; `fetch` and `curl`, which did not, and
 * cost more (a process per curl), fewer. None may be lost.
 */

/**
 * Past the sockets' buffers on loopback (a client still writes when the answer comes), yet cheap.
 * No smaller: without the drain before the answer, Node's client lost 200 of 200 answers at
 * 4 MiB + 1, and none at 64 KiB, 256 KiB, 1, 2 or 3 MiB (Linux, net.ipv4.tcp_wmem max 4 MiB).
 */
const LIMIT = 4 * 1024 * 1024;
const PATH = '/v1/tables/deals/records/bulk';
const AT_ONCE = 16;
const CURL = '/usr/bin/curl';

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

type Client = (url: string, body: Buffer, headers: Record<string, string>) => Promise<Answer>;

/**
 * Node's client without an agent: a fresh connection that asks `Connection: close`; the body
 * written whole with `end`. The exchange counts once the request closed without an error: an
 * `EPIPE` after the answer says the server closed on an unread body, and it comes before the
 * answer as often as the timing allows.
 */
const nodeRequest: Client = (url, body, headers) =>
  new Promise((resolve, reject) => {
    let answer: Answer | undefined;
    const req = request(url, { method: 'POST', agent: false, headers: { ...headers, 'Content-Length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') answerHeaders.set(name, value);
        answer = { status: res.statusCode ?? 0, headers: answerHeaders, text: Buffer.concat(chunks).toString() };
      });
    });
    req.on('error', (error) => reject(Object.assign(error, { message: `${error.message} (${answer ? 'after' : 'before'} the answer)` })));
    req.on('close', () => (answer ? resolve(answer) : reject(new Error('closed without an answer'))));
    req.end(body);
  });

const fetchClient: Client = async (url, body, headers) => {
  const response = await fetch(url, { method: 'POST', body, headers });
  return { status: response.status, headers: response.headers, text: await response.text() };
};

/** curl with the body on its standard input (it sends it with Content-Length, after `Expect: 100-continue`). */
const curlClient: Client = (url, body, headers) =>
  new Promise((resolve, reject) => {
    const args = ['-sS', '-i', '-X', 'POST', '--data-binary', '@-', ...Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]), url];
    const child = execFile(CURL, args, { encoding: 'latin1' }, (error, stdout) => (error ? reject(new Error(`curl: ${error.message}`)) : resolve(parseCurl(String(stdout)))));
    child.stdin!.end(body);
  });

/** The last (final) answer of curl's `-i` output, past any `100 Continue`. */
function parseCurl(output: string): Answer {
  let rest = output;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n');
    const status = Number(statusLine.split(' ')[1]);
    rest = rest.slice(end + 4);
    if (status >= 200 || end < 0) {
      const headers = new Headers();
      for (const line of lines) headers.append(line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim());
      return { status, headers, text: rest };
    }
  }
}

/** `tries` exchanges, {@link AT_ONCE} at a time; what went wrong in each that did not get the whole problem with `status`. */
async function lostAnswers(client: Client, url: string, size: number, headers: Record<string, string>, status: number, tries: number): Promise<string[]> {
  const body = Buffer.alloc(size, 'a');
  const lost: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < tries) {
      const i = (next += 1);
      try {
        const answer = await client(url + PATH, body, { 'Content-Type': 'application/json', ...headers });
        if (answer.status !== status) throw new Error(`status ${answer.status}: ${answer.text}`);
        const problem = assertConforms('POST', PATH, status, answer.headers, answer.text) as { status: number };
        assert.equal(problem.status, status);
      } catch (error) {
        lost.push(`try ${i}: ${(error as { code?: string }).code ?? ''} ${(error as Error).message}${(error as Error).cause ? ` (${String((error as Error).cause)})` : ''}`);
      }
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, worker));
  return lost;
}

/** Each client, its tries per size, and whether it is there. */
const clients: [string, Client, number, boolean][] = [
  ['http.request without an agent', nodeRequest, 200, true],
  ['fetch', fetchClient, 40, true],
  ['curl', curlClient, 16, existsSync(CURL)],
];

describe('answers given before the body is read reach clients that write their whole body first', () => {
  /**
   * `compdata serve` in a process of its own: the server reads every refused body to its end,
   * some gigabytes in all, and each read chunk is a new buffer; in a process of its own the
   * collections this sets off walk a server's small heap, not the heap of a test run.
   */
  const served = shared(async (scope) => {
    let key!: string;
    let reader!: string;
    const { url } = await startChildTestServer(scope, ['--push-body-limit', String(LIMIT)], async (store) => {
      key = (await buildFixture(store, { tenant: 'acme', users: 2, records: 1, deals: 1 })).key;
      reader = (await store.createKey('acme', 'read')).key;
    });
    return { url, key, reader };
  });

  for (const [name, client, tries, present] of clients) {
    test(`${name}: a push over the limit by 1 byte and by 4 KiB gets its 413, ${tries} tries each`, { skip: !present && `no ${CURL}` }, async () => {
      const { url, key } = await served();
      for (const size of [LIMIT + 1, LIMIT + 4096]) {
        const lost = await lostAnswers(client, url, size, { 'X-API-Key': key }, 413, tries);
        assert.deepEqual(lost, [], `${lost.length} of ${tries} lost at ${size} bytes`);
      }
    });

    test(`${name}: a 401 and a 403 given before the body is read`, { skip: !present && `no ${CURL}` }, async () => {
      const { url, reader } = await served();
      const unknown = await lostAnswers(client, url, LIMIT, { 'X-API-Key': 'not-a-key' }, 401, tries / 2);
      assert.deepEqual(unknown, [], `${unknown.length} lost of the 401s`);
      const readOnly = await lostAnswers(client, url, LIMIT, { 'X-API-Key': reader }, 403, tries / 2);
      assert.deepEqual(readOnly, [], `${readOnly.length} lost of the 403s`);
    });
  }
});
