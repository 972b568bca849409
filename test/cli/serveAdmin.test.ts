import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { fixtureFile } from '../support/fixture.js';
import { exchange } from '../support/harness.js';
import { startServe } from '../support/serveProcess.js';
import { until } from '../support/until.js';
import { databaseFor } from '../support/testDatabases.js';
import { temporaryDirectory } from './cliProcess.js';

const TOKEN = 'serve-admin-token-0123456789';

/** A token file as an operator writes one (with a trailing line break), removed when the test ends. */
function tokenFile(t: TestContext): string {
  const path = join(temporaryDirectory(t), 'admin.token');
  writeFileSync(path, `${TOKEN}\n`, { mode: 0o600 });
  return path;
}

/**
 * The administration API of `compdata serve` as the command line starts it: the token from
 * `--admin-token-file`, a sandbox made over HTTP and read through the public API with its key,
 * and `--rate-limit` giving the admin token a bucket of its own.
 */
describe('serve --admin-token-file', { concurrency: true }, () => {
  test('a sandbox made over HTTP is read through the public API with its key; the admin token is limited apart from tenant keys', { timeout: 90_000 }, async (t) => {
    const dbPath = await databaseFor(t);
    const acme = await fixtureFile(dbPath, { tenant: 'acme', records: 3 });
    const server = await startServe(t, dbPath, ['--admin-token-file', tokenFile(t), '--rate-limit', '1/4']);
    assert.ok(!server.stderr().includes(TOKEN));

    const started = performance.now();
    const sandbox = await exchange(server.url, 'POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: 'over-http', users: 3, records: 7, seed: 1 } });
    assert.equal(sandbox.status, 201, sandbox.text);
    const page = await exchange(server.url, 'GET', '/v1/reporting?limit=100', { key: sandbox.body.key.key });
    assert.equal(page.status, 200);
    assert.equal(page.body.data.length, 7);

    // The admin token's burst of 4 is spent (one went to the sandbox); tenant keys keep theirs.
    const burst = await Promise.all(Array.from({ length: 8 }, () => exchange(server.url, 'GET', '/admin/v1/tenants', { bearer: TOKEN })));
    const seconds = (performance.now() - started) / 1000;
    const limited = burst.filter((answer) => answer.status === 429);
    assert.equal(limited.length + burst.filter((answer) => answer.status === 200).length, 8);
    assert.ok(limited.length >= 8 - (3 + Math.floor(seconds)), `${limited.length} of 8 limited after ${seconds} s`);
    assert.ok(limited.length > 0);
    assert.match(limited[0]!.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.match(limited[0]!.headers.get('Retry-After') ?? '', /^[1-9][0-9]*$/);
    assert.equal(limited[0]!.body.status, 429);
    for (const key of [acme.key, sandbox.body.key.key]) {
      assert.equal((await exchange(server.url, 'GET', '/v1/reporting?limit=0', { key })).status, 200);
    }
    assert.ok(!server.logs().some((line) => JSON.stringify(line).includes(TOKEN)), 'the token is never logged');
  });

  test('--webhook-allow-private: an endpoint on a loopback address is taken, a 422 without it', { timeout: 90_000 }, async (t) => {
    const dbPath = await databaseFor(t);
    await fixtureFile(dbPath, { tenant: 'acme', records: 3 });
    const hook = { url: 'http://127.0.0.1:9/hook', events: ['statement.sent_to_payroll'] };
    for (const [flags, want] of [[['--webhook-allow-private'], 201], [[], 422]] as const) {
      const server = await startServe(t, dbPath, ['--admin-token-file', tokenFile(t), ...flags]);
      const made = await exchange(server.url, 'POST', '/admin/v1/tenants/acme/webhooks', { bearer: TOKEN, json: hook });
      assert.equal(made.status, want, `${flags.join(' ')}: ${made.text}`);
      server.child.kill('SIGTERM');
      assert.equal((await server.exited).code, 0);
    }
  });

  test('--sandbox-ttl and --sweep-every: sandboxes expire by the default, and of two workers each sandbox is removed once', { timeout: 90_000 }, async (t) => {
    const dbPath = await databaseFor(t);
    await fixtureFile(dbPath, { tenant: 'acme', records: 3 });
    const server = await startServe(t, dbPath, ['--admin-token-file', tokenFile(t), '--sandbox-ttl', '1', '--sweep-every', '50', '--workers', '2']);
    const names = ['s1', 's2', 's3', 's4', 's5'];
    for (const name of names) {
      const made = await exchange(server.url, 'POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name, users: 1, records: 0 } });
      assert.equal(made.status, 201, made.text);
      assert.equal(Date.parse(made.body.tenant.expires_at) - Date.parse(made.body.tenant.created_at), 1000);
    }
    const listed = async () => (await exchange(server.url, 'GET', '/admin/v1/tenants', { bearer: TOKEN })).body.data.map((tenant: { name: string }) => tenant.name);
    await until('every sandbox is removed', async () => (await listed()).length === 1);
    assert.deepEqual(await listed(), ['acme']);
    const removed = () => server.logs().filter((line) => line.msg === 'sandbox expired: removed with its keys and data').map((line) => String(line.tenant));
    await until('a line is logged for each', () => removed().length >= names.length);
    assert.deepEqual(removed().sort(), names, 'each removed once, by one worker');
  });
});
