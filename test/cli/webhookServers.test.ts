import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test, type TestContext } from 'node:test';
import { exchange, tempDatabase } from '../support/harness.js';
import { startServe, type ServeProcess } from '../support/serveProcess.js';
import { until } from '../support/until.js';
import { startReceiver } from '../support/webhookReceiver.js';

/**
 * The delivery of webhook calls by `compdata serve` processes over one database: a server
 * killed with SIGKILL mid-call loses nothing (another takes the call once its lease has ended,
 * with the same `webhook-id`), and two servers never make an attempt of one call at the same time.
 */
const TOKEN = 'admin-token-0123456789abcdef';
const TIMEOUT_MS = 1_000;
/**
 * A claim lasts the attempt's timeout and a margin (`--webhook-lease-margin`), here 3 s instead
 * of the 17 s that leave room for endpoints' faults (none here): that a killed server's call
 * waits for its claim to end is what is tested, not how long a claim is.
 */
const LEASE_MARGIN_MS = 3_000;
const LEASE_MS = TIMEOUT_MS + LEASE_MARGIN_MS;
const serveArgs = (tokenFile: string, timeoutMs = TIMEOUT_MS) => [
  ...['--admin-token-file', tokenFile, '--webhook-allow-private', '--webhook-poll', '10', '--webhook-timeout', String(timeoutMs)],
  ...['--webhook-retry-scale', '0.001', '--webhook-lease-margin', String(LEASE_MARGIN_MS)],
];
type Json = Record<string, any>;

/** A sandbox `sb` with the endpoints at `urls`, its statements of March validated, then sent to payroll: the calls written. */
async function sentStatements(server: ServeProcess, urls: readonly string[], users: number): Promise<number> {
  const admin = (method: string, path: string, json?: unknown) => exchange(server.url, method, path, { bearer: TOKEN, ...(json !== undefined && { json }) });
  assert.equal((await admin('POST', '/admin/v1/sandboxes', { name: 'sb', users, records: users * 10, seed: 7 })).status, 201);
  for (const url of urls) assert.equal((await admin('POST', '/admin/v1/tenants/sb/webhooks', { url, events: ['statement.sent_to_payroll'] })).status, 201);
  const march = { period: { start_date: '2026-03', end_date: '2026-03' } };
  assert.equal((await admin('POST', '/admin/v1/tenants/sb/statements/status', { status: 'validated', ...march })).status, 200);
  const sent = await admin('POST', '/admin/v1/tenants/sb/statements/status', { status: 'sent_to_payroll', ...march });
  assert.equal(sent.status, 200, sent.text);
  return (sent.body as Json).calls as number;
}

describe('webhook calls delivered by serve processes over one database', { concurrency: true }, () => {
  test('SIGKILL of the server mid-call: once its claim has ended, the restarted server sends the call again with the same webhook-id', { timeout: 120_000 }, async (t) => {
    const { database, sql } = await tempDatabase(t);
    const args = serveArgs(tokenFile(t));
    const receiver = await startReceiver(t, (_call, n) => (n === 0 ? 'hold' : 200));
    const server = await startServe(t, database, args);
    assert.equal(await sentStatements(server, [receiver.url], 10) > 0, true);
    const first = await until('the first call is in flight', () => receiver.calls[0]);
    server.child.kill('SIGKILL');
    assert.equal((await server.exited).signal, 'SIGKILL');
    await startServe(t, database, args);
    const again = await until('the call is sent again', () => receiver.calls.find((call, n) => n > 0 && call.headers['webhook-id'] === first.headers['webhook-id']), 60_000);
    assert.equal(again.body, first.body, 'the same body: nothing of the statement changed');
    // The claim began before the first call reached the receiver: the call is sent again a little less than its length after (and far later than a restart takes).
    assert.ok(again.at - first.at >= LEASE_MS - 1_000, `not before the killed server's claim ended (${again.at - first.at} ms after)`);
    await until('every call is delivered', async () => Number(await sql.value(`SELECT count(*) FROM webhook_calls WHERE state <> 'delivered'`)) === 0);
    const attempts = await sql.rows('SELECT attempt, status FROM webhook_attempts WHERE call_id = ?', first.headers['webhook-id']);
    assert.deepEqual(attempts.map(([attempt, status]) => [Number(attempt), Number(status)]), [[1, 200]], 'the attempt cut by the kill is not in the log; the next is the first recorded');
  });

  test('two servers over one database never make attempts of one call at the same time, and deliver each call once', { timeout: 120_000 }, async (t) => {
    const { database, sql } = await tempDatabase(t);
    // A timeout long enough that no answer of a loaded machine comes too late: each call is then sent once.
    const args = serveArgs(tokenFile(t), 10_000);
    const inFlight = new Set<string>();
    const overlaps: string[] = [];
    const receiver = await startReceiver(t, async (call) => {
      const id = String(call.headers['webhook-id']);
      if (inFlight.has(id)) overlaps.push(id);
      inFlight.add(id);
      await sleep(Math.floor(Math.random() * 40));
      inFlight.delete(id);
      return 200;
    });
    const servers = [await startServe(t, database, args), await startServe(t, database, args)];
    const endpoints = Array.from({ length: 6 }, (_, i) => `${receiver.url}/${i}`);
    const calls = await sentStatements(servers[0]!, endpoints, 30);
    assert.ok(calls >= 12, `calls written: ${calls}`);
    await until('every call is delivered', async () => Number(await sql.value(`SELECT count(*) FROM webhook_calls WHERE state = 'delivered'`)) === calls, 60_000);
    assert.deepEqual(overlaps, [], 'no call was in flight twice at once');
    const ids = receiver.calls.map((call) => String(call.headers['webhook-id']));
    assert.equal(ids.length, calls, 'each call sent once');
    assert.equal(new Set(ids).size, calls);
    assert.equal(Number(await sql.value('SELECT count(*) FROM webhook_attempts')), calls);
    const delivered = servers.map((server) => server.logs().filter((line) => line.msg === 'webhook call delivered').length);
    t.diagnostic(`calls delivered by each server: ${delivered.join(', ')}`);
  });
});

/** The administration token in a file of its own, removed when the test ends. */
function tokenFile(t: TestContext): string {
  const directory = mkdtempSync(join(tmpdir(), 'compdata-admin-token-'));
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  const file = join(directory, 'admin.token');
  writeFileSync(file, TOKEN);
  return file;
}
