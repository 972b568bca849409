import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { pino } from 'pino';
import { createLogger, endLog, type LogLevel } from '../../src/http/logging.js';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { startTestServer, TEST_ENGINE } from '../support/harness.js';
import { captureLogs } from '../support/logCapture.js';

async function serve(t: TestContext, level: LogLevel = 'info', options = {}) {
  let fixture!: Fixture;
  const logs = captureLogs(level);
  const server = await startTestServer(t, { ...options, logger: logs.logger }, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme' });
  });
  return { server, key: fixture.key, logs };
}

const requestLines = (entries: Record<string, any>[]) => entries.filter((entry) => entry.msg === 'request');

describe('structured logs (pino)', () => {
  test('one JSON line per request: request id, method, path, status, duration; the id is echoed', async (t) => {
    const { server, key, logs } = await serve(t);
    const page = await server.call('GET', '/v1/reporting?limit=2&offset=1', { key });
    const missing = await server.call('GET', '/nowhere');
    const lines = requestLines(logs.entries());
    assert.equal(lines.length, 2);
    const [first, second] = lines;
    assert.deepEqual(
      { ...first, time: undefined, pid: undefined, durationMs: undefined },
      { level: 'info', msg: 'request', reqId: page.headers.get('x-request-id'), method: 'GET', path: '/v1/reporting', status: 200, time: undefined, pid: undefined, durationMs: undefined },
    );
    assert.match(first!.reqId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.ok(typeof first!.durationMs === 'number' && first!.durationMs >= 0);
    assert.ok(!Number.isNaN(Date.parse(first!.time)));
    assert.equal(second!.status, 404);
    assert.equal(second!.reqId, missing.headers.get('x-request-id'));
    assert.notEqual(first!.reqId, second!.reqId);
  });

  test('a sane X-Request-Id is adopted; anything else is replaced by a new id', async (t) => {
    const { server, logs } = await serve(t);
    const cases: [string, string, boolean][] = [
      ['a trace id', '4bf92f3577b34da6a3ce929d0e0e4736', true],
      ['a UUID', '9b2f6f1e-1c1e-4c55-9a51-5f8f2e6b1f00', true],
      ['allowed punctuation', 'svc.a:b/c+d=e@f~g_h-i', true],
      ['too long', 'x'.repeat(129), false],
      ['blanks', 'a b', false],
      ['quotes and braces', '"}{"level":"fatal', false],
      ['two values', 'a, b', false],
    ];
    for (const [name, sent, adopted] of cases) {
      const response = await server.call('GET', '/healthz', { headers: { 'X-Request-Id': sent } });
      const echoed = response.headers.get('x-request-id')!;
      assert.equal(echoed === sent, adopted, name);
      assert.equal(requestLines(logs.entries()).at(-1)!.reqId, echoed, name);
    }
  });

  test('the API key never appears in the logs, at any level, whatever the outcome', async (t) => {
    const { server, key, logs } = await serve(t, 'trace', { bodyLimit: 200 });
    // The secret follows `cdk_<id>_`; it may itself hold '_' (base64url), so it is not what follows the last '_'.
    const [, prefix, secret] = /^(cdk_[0-9a-f]{12}_)(.+)$/.exec(key)!;
    const wrongSecret = `${prefix}${'A'.repeat(secret!.length)}`;
    await server.sql.exec('DROP TABLE table_records'); // a fault of the server itself: a 500
    const outcomes = [
      await server.call('GET', '/v1/reporting?limit=1', { key }),
      await server.call('GET', '/v1/reporting?limit=1', { key: wrongSecret }),
      await server.call('GET', `/v1/reporting?limit=1&offset=${key}`, { key }),
      await server.call('PUT', '/v1/users/groups/bulk', { key, json: { data: [{ user: key }] } }),
      await server.call('PUT', '/v1/users/groups/bulk', { key, json: { data: [{ user: 'x'.repeat(300) }] } }),
      await server.call('GET', '/v1/tables/deals/records', { key }),
      await server.call('POST', '/v1/reporting', { key }),
    ];
    assert.deepEqual(outcomes.map((response) => response.status), [200, 401, 400, 400, 413, 500, 405]);
    const text = logs.text();
    const leaks = text.split('\n').filter((line) => line.includes(secret!));
    assert.deepEqual(leaks, [], 'the secret of the key is not in the logs');
    const lines = requestLines(logs.entries());
    assert.equal(lines.length, outcomes.length);
    for (const line of lines) assert.equal(line.headers['x-api-key'], '[redacted]', 'at debug the headers are there, the key redacted');
    assert.ok(lines.some((line) => line.query === 'limit=1'), 'at debug the query is there');
  });

  test('an unexpected error is logged once with its cause; the client learns nothing of it', async (t) => {
    const { server, key, logs } = await serve(t);
    await server.sql.exec('DROP TABLE table_records');
    const response = await server.call('GET', '/v1/tables/deals/records', { key });
    assert.equal(response.status, 500);
    assert.deepEqual(response.body, {
      type: 'urn:compdata:problem:internal',
      title: 'Internal Server Error',
      status: 500,
      detail: 'The server could not complete the request.',
    });
    const errors = logs.entries().filter((entry) => entry.level === 'error');
    assert.equal(errors.length, 1, 'logged once');
    const [error] = errors;
    assert.equal(error!.reqId, response.headers.get('x-request-id'));
    const [message, code] = TEST_ENGINE === 'sqlite' ? [/no such table: table_records/, 'SQLITE_ERROR'] : [/relation "table_records" does not exist/, '42P01'];
    assert.match(error!.err.message, message);
    assert.equal(error!.err.code, code);
    assert.match(error!.err.stack, /\n\s+at /, 'the stack is in the log');
    assert.equal(requestLines(logs.entries()).at(-1)!.status, 500);
  });

  test('at warn, requests are not logged', async (t) => {
    const { server, logs } = await serve(t, 'warn');
    await server.call('GET', '/healthz');
    assert.equal(logs.text(), '');
  });
});

describe('ending the log before the process exits (endLog)', () => {
  test('every line logged before it is in the file, in order, when it resolves', async (t) => {
    const directory = mkdtempSync(join(tmpdir(), 'compdata-log-'));
    t.after(() => rmSync(directory, { recursive: true, force: true }));
    const file = join(directory, 'log.jsonl');
    const logger = createLogger('info', pino.destination({ dest: file, sync: false, mkdir: true }));
    for (let i = 0; i < 2000; i += 1) logger.info({ i }, 'line');
    logger.info('stopped');
    await endLog(logger);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as { i?: number; msg: string });
    assert.equal(lines.length, 2001);
    assert.deepEqual(lines.slice(0, 2000).map((line) => line.i), Array.from({ length: 2000 }, (_, i) => i));
    assert.equal(lines.at(-1)!.msg, 'stopped');
  });

  test('over a destination that cannot be ended, it resolves once the lines are handed over', async () => {
    const written: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void written.push(line) });
    logger.info('stopped');
    await endLog(logger);
    assert.equal((JSON.parse(written[0]!) as { msg: string }).msg, 'stopped');
  });
});
