import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runInProcess, temporaryDirectory } from './cliProcess.js';
import { fixtureFile } from '../support/fixture.js';
import { exchange, type Exchange } from '../support/harness.js';
import { startServe, type ServeProcess } from '../support/serveProcess.js';
import { databaseFor } from '../support/testDatabases.js';
import { until } from '../support/until.js';


let requests = 0;
/** One exchange on a connection of its own, and the pid of the worker that served it. */
async function served(server: ServeProcess, method: string, path: string, options: Parameters<typeof exchange>[3] = {}): Promise<{ response: Exchange; pid: number }> {
  const requestId = `workers-test-${(requests += 1)}`;
  const response = await exchange(server.url, method, path, { ...options, headers: { ...options.headers, Connection: 'close', 'X-Request-Id': requestId } });
  const line = await until(`the log line of ${requestId}`, () => server.logs().find((entry) => entry.reqId === requestId && entry.msg === 'request'));
  return { response, pid: line.pid as number };
}

const ITEM = { user: 'user2@acme.example', group_dimension: 'region', group: 'LATAM', start_date: '2026-06', end_date: null };

describe('serve --workers', { concurrency: true }, () => {
  test('two workers on one port: a write through one is read through the other; a dead worker is replaced; SIGTERM stops all', { timeout: 90_000 }, async (t) => {
    const dbPath = await databaseFor(t);
    const { key } = await fixtureFile(dbPath, { tenant: 'acme', records: 24 });
    const server = await startServe(t, dbPath, ['--workers', '2']);

    const put = await served(server, 'PUT', '/v1/users/groups/bulk', { key, json: { data: [ITEM] } });
    assert.equal(put.response.status, 200, put.response.text);
    const readBack = await until('a read served by the other worker', async () => {
      const read = await served(server, 'GET', '/v1/users/groups?user=user2@acme.example', { key });
      return read.pid === put.pid ? undefined : read;
    });
    assert.notEqual(readBack.pid, put.pid);
    assert.deepEqual(readBack.response.body.data, [ITEM], 'the other worker reads the write at once');
    const workers = new Set([put.pid, readBack.pid]);

    process.kill(put.pid, 'SIGKILL');
    const death = await until('the death logged', () => server.logs().find((entry) => entry.msg === 'a server worker died; starting another'));
    assert.equal(death.workerPid, put.pid);
    assert.equal(death.level, 'error');
    const replacement = await until('a request served by a new worker', async () => {
      const read = await served(server, 'GET', '/v1/reporting?limit=1', { key });
      assert.equal(read.response.status, 200);
      return workers.has(read.pid) ? undefined : read.pid;
    });
    workers.add(replacement);

    server.child.kill('SIGTERM');
    assert.deepEqual(await server.exited, { code: 0, signal: null });
    for (const pid of [readBack.pid, replacement]) assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `worker ${pid} has ended`);
    assert.ok(server.logs().some((entry) => entry.msg === 'stopped' && entry.pid === server.child.pid), 'the primary says it stopped');
  });

  test('every worker serves the administration API on the one port: a sandbox made through one is reset and deleted through the other', { timeout: 90_000 }, async (t) => {
    const dbPath = await databaseFor(t);
    await fixtureFile(dbPath, { tenant: 'acme', records: 1 });
    const token = 'workers-admin-token-0123456789';
    const tokenPath = join(temporaryDirectory(t), 'admin.token');
    writeFileSync(tokenPath, `${token}\n`, { mode: 0o600 });
    const server = await startServe(t, dbPath, ['--workers', '2', '--admin-token-file', tokenPath]);

    const made = await served(server, 'POST', '/admin/v1/sandboxes', { bearer: token, json: { name: 'through-workers', records: 3 } });
    assert.equal(made.response.status, 201, made.response.text);
    const reset = await until('a reset served by the other worker', async () => {
      const answer = await served(server, 'POST', '/admin/v1/tenants/through-workers/reset', { bearer: token });
      assert.equal(answer.response.status, 204, answer.response.text);
      return answer.pid === made.pid ? undefined : answer;
    });
    const deleted = await until('a delete served by the first worker', async () => {
      const listed = await served(server, 'GET', '/admin/v1/tenants', { bearer: token });
      if (listed.pid !== made.pid) return undefined;
      assert.deepEqual(listed.response.body.data.map((tenant: { name: string }) => tenant.name), ['acme', 'through-workers']);
      return served(server, 'DELETE', '/admin/v1/tenants/through-workers', { bearer: token });
    });
    assert.equal(deleted.response.status, 204);
    assert.equal((await served(server, 'GET', '/v1/reporting', { key: made.response.body.key.key })).response.status, 401);
    assert.notEqual(reset.pid, made.pid);
  });

  test('--workers takes a count or auto; anything else is a usage error', async (t) => {
    const dbPath = await databaseFor(t);
    await fixtureFile(dbPath, { tenant: 'acme', records: 1 });
    // Refused while the command line is read, before anything serves: run in this process.
    for (const bad of ['0', 'two', '-1', '1.5']) {
      const result = await runInProcess(['serve', '--db', dbPath, '--port', '0', '--workers', bad]);
      assert.equal(result.code, 2, `--workers ${bad}`);
      assert.match(result.stderr, /--workers/);
    }
  });
});
