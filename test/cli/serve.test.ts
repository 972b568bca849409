import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { describe, test, type TestContext } from 'node:test';
import { fixtureFile } from '../support/fixture.js';
import { exchange } from '../support/harness.js';
import { startServe } from '../support/serveProcess.js';
import { runCli, runInProcess, startCli } from './cliProcess.js';
import { databaseFor } from '../support/testDatabases.js';
import { until } from '../support/until.js';

describe('compdata serve, as a process', { concurrency: true }, () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`listens on a free port with --port 0 and exits 0 on ${signal}`, async (t) => {
      const path = await databaseFor(t);
      const child = startCli(['serve', '--db', path, '--port', '0']);
      const exited = once(child, 'exit');
      const [firstLine] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const url = /^listening on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(firstLine);
      assert.ok(url, firstLine);
      assert.notEqual(Number(url[2]), 0);
      const response = await fetch(`${url[1]}/v1/reporting`);
      assert.equal(response.status, 401);
      child.kill(signal);
      const [code] = await exited;
      assert.equal(code, 0);
    });
  }

  test('a port in use is one line on stderr and exit 1', async (t) => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    t.after(() => blocker.close());
    const port = (blocker.address() as { port: number }).port;
    const path = await databaseFor(t);
    const result = await runCli(['serve', '--db', path, '--port', String(port)]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^error: cannot serve [^\n]*EADDRINUSE[^\n]*\n$/);
  });

  /** Seeds a small tenant into a fresh file and serves it with `args`; returns the URL and key. */
  async function serveFixture(t: TestContext, args: string[]) {
    const path = await databaseFor(t);
    const { key } = await fixtureFile(path, { tenant: 'acme', records: 3000 });
    const child = startCli(['serve', '--db', path, '--port', '0', ...args]);
    const exited = once(child, 'exit');
    t.after(() => child.kill('SIGKILL'));
    const [firstLine] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    const url = /^listening on (\S+)$/.exec(firstLine)![1]!;
    return { url, key, child, exited };
  }

  // One server (a seeded file, a process) for both: the options do not touch a GET page.
  test('--public-url, --body-limit, --cors-origin and --max-concurrent reach the server; SIGTERM lets a page in flight finish, then exits 0', async (t) => {
    const cors = ['--cors-origin', 'https://a.example', '--cors-origin', 'https://b.example:8443'];
    const { url, key, child, exited } = await serveFixture(t, ['--public-url', 'https://api.example.com/compdata/', '--body-limit', '64', ...cors]);
    for (const origin of ['https://a.example', 'https://b.example:8443']) {
      const preflight = await fetch(`${url}/v1/reporting`, { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'GET' } });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), origin);
    }
    const page = (await (await fetch(`${url}/v1/reporting?limit=1`, { headers: { 'X-API-Key': key } })).json()) as { next: string };
    assert.equal(page.next, 'https://api.example.com/compdata/v1/reporting?limit=1&offset=1');
    const large = await fetch(`${url}/v1/users/groups/bulk`, {
      method: 'PUT',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ data: [{ user: 'x'.repeat(100) }] }),
    });
    assert.equal(large.status, 413);

    const response = await fetch(`${url}/v1/reporting?limit=2000`, { headers: { 'X-API-Key': key } });
    child.kill('SIGTERM');
    const inFlight = (await response.json()) as { count: number; data: unknown[] };
    assert.equal(inFlight.count, 2000);
    assert.equal(inFlight.data.length, 2000);
    const [code] = await exited;
    assert.equal(code, 0);
  });

  test('the limits and the log level reach the server; stdout is the URL line, then one JSON line per request', async (t) => {
    const path = await databaseFor(t);
    const server = await startServe(t, path, ['--max-url-length', '100', '--max-header-size', '2048', '--keep-alive-timeout', '200']);
    assert.equal((await exchange(server.url, 'GET', `/healthz?${'a'.repeat(100)}`)).status, 414);
    assert.equal((await exchange(server.url, 'GET', '/healthz', { headers: { 'X-Padding': 'p'.repeat(3000) } })).status, 431);
    const ok = await exchange(server.url, 'GET', '/healthz', { headers: { 'X-Request-Id': 'from-the-client' } });
    assert.equal(ok.headers.get('x-request-id'), 'from-the-client');
    const lines = await until('the three requests are logged', () => server.logs().length >= 3 && server.logs());
    assert.deepEqual(lines.map((line) => [line.msg, line.status]), [['request', 414], ['request refused', 431], ['request', 200]]);
    assert.equal(lines[2]!.reqId, 'from-the-client');
    const quiet = await startServe(t, path, ['--log-level', 'warn']);
    assert.equal((await exchange(quiet.url, 'GET', '/healthz')).status, 200);
    quiet.child.kill('SIGTERM');
    assert.equal((await quiet.exited).code, 0);
    assert.deepEqual(quiet.logs(), []);
  });

  // Refused before anything is served: the command line in the test's process (inProcess.test.ts).
  test('bad limits are usage errors: one line on stderr, exit 2', async (t) => {
    const path = await databaseFor(t);
    for (const args of [['--headers-timeout', '5000', '--request-timeout', '1000'], ['--log-level', 'loud'], ['--max-url-length', '0'], ['--idle-timeout', '1.5']]) {
      const result = await runInProcess(['serve', '--db', path, '--port', '0', ...args]);
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, /^error: [^\n]+\n$/, args.join(' '));
    }
  });
});
