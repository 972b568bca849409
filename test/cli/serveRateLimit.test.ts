import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixtureFile } from '../support/fixture.js';
import { exchange } from '../support/harness.js';
import { startServe } from '../support/serveProcess.js';
import { databaseFor } from '../support/testDatabases.js';
import { runInProcess } from './cliProcess.js';

/**
 * `serve --rate-limit` as the command line sets it up, across `--workers`: every request on a
 * connection of its own, which the primary hands to the workers in turn; the key's allowance
 * is one for all of them.
 */
describe('serve --rate-limit', () => {
  test('across --workers 2 a key gets its burst and no more, whichever worker serves it', { timeout: 90_000 }, async (t) => {
    const dbPath = await databaseFor(t);
    const { key } = await fixtureFile(dbPath, { tenant: 'acme', records: 3 });
    const server = await startServe(t, dbPath, ['--workers', '2', '--rate-limit', '1/6']);
    let requestId = 0;
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 16 }, () =>
        exchange(server.url, 'GET', '/v1/reporting?limit=0', { key, headers: { Connection: 'close', 'X-Request-Id': `limited-${(requestId += 1)}` } }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const granted = answers.filter((answer) => answer.status === 200).length;
    assert.ok(granted >= 6 && granted <= 6 + Math.floor(seconds), `${granted} of 16 served in ${seconds} s`);
    assert.equal(answers.filter((answer) => answer.status === 429).length, 16 - granted);
    assert.match(answers.find((answer) => answer.status === 429)!.headers.get('RateLimit-Policy')!, /^"per-key";q=6;w=6$/);

    const servedBy = new Set(server.logs().filter((line) => line.msg === 'request' && String(line.reqId).startsWith('limited-')).map((line) => line.pid));
    assert.equal(servedBy.size, 2, 'both workers answered some of the burst');
  });

  test('--rate-limit takes N or N/BURST; anything else is a usage error', async (t) => {
    const dbPath = await databaseFor(t);
    await fixtureFile(dbPath, { tenant: 'acme', records: 1 });
    for (const bad of ['0', '10/0', 'ten', '-1', '1.5', '5/', '/5', '10/20/30']) {
      // Refused before anything is served: the command line in the test's process (inProcess.test.ts).
      const result = await runInProcess(['serve', '--db', dbPath, '--port', '0', '--rate-limit', bad]);
      assert.equal(result.code, 2, `--rate-limit ${bad}`);
      assert.match(result.stderr, /--rate-limit/);
    }
  });
});
