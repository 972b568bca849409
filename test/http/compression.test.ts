import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { assertConforms } from '../support/contract.js';
import { startTestServer } from '../support/harness.js';

interface RawExchange {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as it came over the wire, and how many pieces it came in. */
  wire: Buffer;
  pieces: number;
}

/** A GET whose body is kept as it came on the wire (the harness's `call` decodes text). */
function rawGet(base: string, path: string, headers: Record<string, string>): Promise<RawExchange> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    request({ hostname, port, path, headers }, (response) => {
      const pieces: Buffer[] = [];
      response.on('data', (piece: Buffer) => pieces.push(piece));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, wire: Buffer.concat(pieces), pieces: pieces.length }));
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

const decoders: Record<string, (bytes: Buffer) => Buffer> = { gzip: gunzipSync, br: brotliDecompressSync };

test('answers are compressed as Accept-Encoding allows (gzip, br), above a threshold, pages still streamed', async (t) => {
  let fixture!: Fixture;
  const server = await startTestServer(t, {}, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme', records: 2000 });
  });
  const page = '/v1/reporting?limit=2000';
  const plain = await rawGet(server.url, page, { 'X-API-Key': fixture.key });

  await t.test('without Accept-Encoding: as it is, with its length', () => {
    assert.equal(plain.status, 200);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(Number(plain.headers['content-length']), plain.wire.length);
    assert.ok(plain.wire.length > 1_000_000, `a 2000-record page is ${plain.wire.length} bytes`);
    assert.match(String(plain.headers.vary), /Accept-Encoding/);
  });

  const cases: [string, { accept: string; want: string }][] = [
    ['gzip alone', { accept: 'gzip', want: 'gzip' }],
    ['br alone', { accept: 'br', want: 'br' }],
    ['both: br', { accept: 'gzip, deflate, br', want: 'br' }],
    ['gzip preferred by weight', { accept: 'br;q=0.5, gzip', want: 'gzip' }],
  ];
  for (const [name, { accept, want }] of cases) {
    await t.test(`${name}: ${want}, the same bytes once decoded, streamed in pieces without a length`, () =>
      rawGet(server.url, page, { 'X-API-Key': fixture.key, 'Accept-Encoding': accept }).then((answer) => {
        assert.equal(answer.status, 200);
        assert.equal(answer.headers['content-encoding'], want);
        assert.equal(answer.headers['content-length'], undefined);
        assert.equal(answer.headers['transfer-encoding'], 'chunked');
        assert.ok(answer.pieces > 1, 'the page came in one piece');
        assert.ok(answer.wire.length < plain.wire.length / 4, `${want}: ${answer.wire.length} of ${plain.wire.length} bytes`);
        const decoded = decoders[want]!(answer.wire);
        assert.ok(decoded.equals(plain.wire));
        const headers = new Headers(Object.entries(answer.headers).map(([key, value]) => [key, String(value)]));
        assertConforms('GET', '/v1/reporting', answer.status, headers, decoded.toString('utf8'));
      }),
    );
  }

  await t.test('small answers and identity-only clients are not compressed', async () => {
    for (const [path, headers] of [
      ['/healthz', { 'Accept-Encoding': 'gzip, br' }],
      ['/v1/reporting?limit=1', { 'Accept-Encoding': 'gzip, br', 'X-API-Key': fixture.key }],
      ['/v1/reporting', { 'Accept-Encoding': 'gzip, br' }],
      [page, { 'Accept-Encoding': 'identity', 'X-API-Key': fixture.key }],
    ] as const) {
      const answer = await rawGet(server.url, path, headers);
      assert.equal(answer.headers['content-encoding'], undefined, path);
    }
  });

  await t.test('the document and the reference page are compressed too', async () => {
    for (const path of ['/openapi.json', '/docs/swagger-ui-bundle.js']) {
      const answer = await rawGet(server.url, path, { 'Accept-Encoding': 'gzip' });
      assert.equal(answer.headers['content-encoding'], 'gzip', path);
      assert.ok(gunzipSync(answer.wire).length > answer.wire.length, path);
    }
  });
});

test('pages sent side by side, compressed or not, and after a client that went away mid-page, are whole', async (t) => {
  let fixture!: Fixture;
  const server = await startTestServer(t, {}, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme', records: 2000 });
  });
  const key = { 'X-API-Key': fixture.key };
  const pages = ['/v1/reporting?limit=2000', '/v1/reporting?limit=600&offset=7', '/v1/reporting?limit=150&offset=3'];
  const expected = await Promise.all(pages.map((page) => rawGet(server.url, page, key)));
  assert.ok(expected[1]!.wire.length > 256 * 1024 && expected[2]!.wire.length < 256 * 1024, 'a streamed page and a page sent whole');
  const encodings = [undefined, 'gzip', 'br'] as const;
  const together = await Promise.all(
    Array.from({ length: 12 }, async (_, i) => {
      const encoding = encodings[i % 3];
      const answer = await rawGet(server.url, pages[i % 3]!, { ...key, ...(encoding && { 'Accept-Encoding': encoding }) });
      return { index: i % 3, body: encoding && answer.headers['content-encoding'] ? decoders[encoding]!(answer.wire) : answer.wire };
    }),
  );
  for (const { index, body } of together) assert.ok(body.equals(expected[index]!.wire), `page ${pages[index]}`);
  // A client that reads the first piece of a page and hangs up.
  const { hostname, port } = new URL(server.url);
  await new Promise<void>((resolve, reject) => {
    const outgoing = request({ hostname, port, path: pages[0], headers: key }, (response) => {
      response.once('data', () => response.destroy());
      response.once('close', () => resolve());
    });
    outgoing.on('error', reject).end();
  });
  const after = await rawGet(server.url, pages[0]!, key);
  assert.ok(after.wire.equals(expected[0]!.wire));
});
