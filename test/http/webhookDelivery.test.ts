import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { STATEMENTS_ID } from '../../src/http/v2Structures.js';
import { assertWebhookCall } from '../support/contract.js';
import type { TestServer } from '../support/harness.js';
import { ADMIN_TOKEN, deliveringServer, endpointOf, sendToPayroll, validatedSandbox } from '../support/deliveringSandbox.js';
import { until } from '../support/until.js';
import { startReceiver, type Behaviour } from '../support/webhookReceiver.js';

const TOKEN = ADMIN_TOKEN;
const hooks = '/admin/v1/tenants/sb/webhooks';
type Json = Record<string, any>;


/** The calls' states and the attempts recorded, by call. */
const callStates = async (server: TestServer) => new Map((await server.sql.rows('SELECT id, state, attempts FROM webhook_calls')).map(([id, state, attempts]) => [String(id), `${String(state)} ${Number(attempts)}`]));
const attemptsOf = async (server: TestServer, id: string) =>
  (await server.sql.rows('SELECT attempt, status, error, at, body FROM webhook_attempts WHERE call_id = ? ORDER BY attempt', id)).map(([attempt, status, error, at, body]) => ({
    attempt: Number(attempt),
    status: status === null ? null : Number(status),
    error: error as string | null,
    at: Date.parse(String(at)),
    body: String(body),
  }));

describe('the delivery of webhook calls', () => {
  test('a call is a POST of the statement and its records as the v2 read shows them, signed with the signing secret, with X-Webhook-Secret [conf:webhook-call] [conf:webhook-trigger] [conf:webhook-body-shape]', async (t) => {
    const server = await deliveringServer(t);
    const receiver = await startReceiver(t);
    const changes = await validatedSandbox(server);
    const made = await endpointOf(server, receiver.url);
    const quiet = await endpointOf(server, `${receiver.url}?quiet`, { secret_header: false });
    const sent = await sendToPayroll(server, changes.slice(0, 2));
    assert.equal(sent.calls, 4);
    await until('the four calls arrived', () => receiver.calls.length >= 4);
    await until('the four calls are delivered', async () => [...(await callStates(server)).values()].every((state) => state === 'delivered 1'));

    const records = (await server.call('GET', `/v2/reporting/${STATEMENTS_ID}/statements?limit=2000`, { key: (await server.call('POST', '/admin/v1/tenants/sb/keys', { bearer: TOKEN })).body.key })).body.data as Json[];
    for (const call of receiver.calls) {
      const body = assertWebhookCall(call.headers, call.body);
      const quietOne = call.path.endsWith('?quiet');
      const secrets = quietOne ? quiet : made;
      assert.deepEqual(new Webhook(secrets.signing_secret).verify(call.body, call.headers as Record<string, string>), body, 'the signature verifies');
      assert.equal(call.headers['x-webhook-secret'], quietOne ? undefined : made.secret);
      assert.equal(call.headers['content-type'], 'application/json');
      const change = changes.find((one) => one.id === body.data.statement.id);
      assert.ok(change, `a statement sent: ${body.data.statement.id}`);
      assert.deepEqual([body.type, body.data.statement.user.email, body.data.statement.month, body.data.statement.status], ['statement.sent_to_payroll', change.user, '2026-03', 'sent_to_payroll']);
      const own = records.filter((record) => record['standard.user'].id === body.data.statement.user.id && String(record['standard.date']).startsWith('2026-03'));
      assert.ok(own.length > 0);
      assert.deepEqual(body.data.records, own, 'exactly the statement\'s records, as the v2 read shows them');
      assert.deepEqual(body.data.statement.total_commission, own[0]!['standard.total_commission']);
    }
    const [one] = await server.sql.rows('SELECT id FROM webhook_calls ORDER BY seq LIMIT 1');
    const logged = await attemptsOf(server, String(one![0]));
    assert.deepEqual(logged.map(({ attempt, status, error }) => [attempt, status, error]), [[1, 204, null]]);
    assert.ok(receiver.calls.some((call) => call.body === logged[0]!.body), 'the body sent is kept with its attempt');
  });

  test('during a rotation\'s grace a call carries both signatures, each verifying, and the new X-Webhook-Secret', async (t) => {
    const server = await deliveringServer(t);
    const receiver = await startReceiver(t);
    const changes = await validatedSandbox(server);
    const made = await endpointOf(server, receiver.url);
    const rotated = (await server.call('POST', `${hooks}/${made.id}/rotate`, { bearer: TOKEN, json: { grace_seconds: 3600 } })).body;
    await sendToPayroll(server, changes.slice(0, 1));
    const call = await until('the call arrived', () => receiver.calls[0]);
    assert.equal(call.headers['webhook-signature']!.toString().split(' ').length, 2);
    for (const secret of [rotated.signing_secret, made.signing_secret]) assert.doesNotThrow(() => new Webhook(secret).verify(call.body, call.headers as Record<string, string>));
    assert.equal(call.headers['x-webhook-secret'], rotated.secret);

    await server.call('POST', `${hooks}/${made.id}/rotate`, { bearer: TOKEN, json: { grace_seconds: 0 } });
    await sendToPayroll(server, changes.slice(1, 2));
    const after = await until('the second call arrived', () => receiver.calls[1]);
    assert.equal(after.headers['webhook-signature']!.toString().split(' ').length, 1, 'no grace: one signature');
  });

  test('a failed attempt (a 500, no answer in time) is made again after a wait of the schedule, each attempt recorded, until one is answered 2xx', async (t) => {
    const server = await deliveringServer(t, { timeoutMs: 300 });
    const behaviour: Behaviour = (call) => {
      const before = receiver.calls.filter((one) => one.path === call.path).length - 1;
      if (call.path.endsWith('/failing')) return before < 2 ? 500 : 200;
      return before < 1 ? 'hold' : 202;
    };
    const receiver = await startReceiver(t, (call, n) => behaviour(call, n));
    const changes = await validatedSandbox(server);
    await endpointOf(server, `${receiver.url}/failing`);
    await endpointOf(server, `${receiver.url}/silent`);
    await sendToPayroll(server, changes.slice(0, 1));
    await until('both calls are delivered', async () => [...(await callStates(server)).values()].sort().join() === 'delivered 2,delivered 3', 30_000);
    const calls = await server.sql.rows("SELECT c.id, e.url FROM webhook_calls c JOIN webhook_endpoints e ON e.id = c.endpoint_id");
    for (const [id, url] of calls) {
      const logged = await attemptsOf(server, String(id));
      const sentIds = new Set(receiver.calls.filter((call) => call.path.endsWith(String(url).slice(-7))).map((call) => call.headers['webhook-id']));
      assert.deepEqual([...sentIds], [id], 'every attempt carries the call\'s webhook-id');
      if (String(url).endsWith('/failing')) assert.deepEqual(logged.map(({ status, error }) => [status, error]), [[500, null], [500, null], [200, null]]);
      else {
        assert.deepEqual(logged.map(({ status }) => status), [null, 202]);
        assert.equal(logged[0]!.error, 'timeout');
      }
      // Each wait within its bound of the schedule (full jitter: from 0 up to 10, 20, … ms here), plus the attempt, the poll and a loaded machine's slack.
      for (let i = 1; i < logged.length; i += 1) assert.ok(logged[i]!.at >= logged[i - 1]!.at, 'attempts in order');
    }
  });

  test('a call that always fails is failed after the last attempt allowed; a later call to the endpoint is still delivered', async (t) => {
    const server = await deliveringServer(t, { attempts: 3 });
    const receiver = await startReceiver(t, (call) => (receiver.calls[0]!.headers['webhook-id'] === call.headers['webhook-id'] ? 503 : 200));
    const changes = await validatedSandbox(server);
    await endpointOf(server, receiver.url);
    await sendToPayroll(server, changes.slice(0, 1));
    const [[doomed]] = (await server.sql.rows('SELECT id FROM webhook_calls')) as [[string]];
    await until('the call failed for good', async () => (await callStates(server)).get(doomed) === 'failed 3');
    assert.deepEqual((await attemptsOf(server, doomed)).map(({ status }) => status), [503, 503, 503]);
    assert.equal(receiver.calls.length, 3);
    await sendToPayroll(server, changes.slice(1, 2));
    await until('the later call is delivered', async () => [...(await callStates(server)).values()].sort().join() === 'delivered 1,failed 3');
  });

  test('a statement\'s later call to an endpoint waits while an earlier one is pending, retries included', async (t) => {
    const server = await deliveringServer(t);
    // The first call of the statement fails twice before it is answered; every other call is answered at once.
    const failing = (call: { headers: Record<string, unknown> }) => call.headers['webhook-id'] === receiver.calls[0]!.headers['webhook-id'];
    const receiver = await startReceiver(t, (call) => (failing(call) && receiver.calls.filter(failing).length <= 2 ? 500 : 200));
    const changes = await validatedSandbox(server);
    await endpointOf(server, receiver.url);
    await sendToPayroll(server, changes.slice(0, 1));
    const [[first]] = (await server.sql.rows('SELECT id FROM webhook_calls')) as [[string]];
    // A second call of the same statement to the same endpoint, written after it (as a second event of the statement would be).
    await server.sql.rows(
      `INSERT INTO webhook_calls (tenant_id, id, seq, endpoint_id, event, user_id, month, created_at, state, next_attempt_at)
       SELECT tenant_id, 'msg_ffffffffffffffffffffffff', seq + 1, endpoint_id, event, user_id, month, created_at, 'pending', created_at FROM webhook_calls WHERE id = ?`,
      first,
    );
    await sendToPayroll(server, changes.slice(1, 2));
    await until('every call is delivered', async () => [...(await callStates(server)).values()].sort().join() === 'delivered 1,delivered 1,delivered 3', 30_000).catch(async (error: unknown) => assert.fail(`${String(error)}: ${JSON.stringify([...(await callStates(server))])}; arrivals ${receiver.calls.map((call) => String(call.headers['webhook-id'])).join(' ')}`));
    const arrivals = receiver.calls.map((call) => String(call.headers['webhook-id']));
    const firstDelivered = arrivals.lastIndexOf(first);
    assert.deepEqual(arrivals.filter((id) => id === first).length, 3);
    assert.ok(arrivals.indexOf('msg_ffffffffffffffffffffffff') > firstDelivered, `the later call came after the earlier one was delivered: ${arrivals.join(' ')}`);
  });

  test('a call whose statement is gone before an attempt is failed, with the reason in its log, and nothing sent', async (t) => {
    const server = await deliveringServer(t);
    const receiver = await startReceiver(t, () => 500);
    const changes = await validatedSandbox(server);
    await endpointOf(server, receiver.url);
    await sendToPayroll(server, changes.slice(0, 1));
    const [[id, userId, month]] = (await server.sql.rows('SELECT id, user_id, month FROM webhook_calls')) as [[string, string, number]];
    await until('an attempt failed', async () => (await attemptsOf(server, id)).length >= 1);
    await server.sql.rows('DELETE FROM statements WHERE month = ? AND user_pk = (SELECT pk FROM users WHERE id = ?)', month, userId);
    await until('the call failed', async () => (await callStates(server)).get(id)?.startsWith('failed'));
    const logged = await attemptsOf(server, id);
    assert.deepEqual(logged.at(-1)!, { ...logged.at(-1)!, status: null, error: 'the statement is no longer stored', body: '' });
    assert.deepEqual(logged.slice(0, -1).map(({ status }) => status), receiver.calls.map(() => 500), 'every attempt before it was sent, and answered 500');
    assert.equal((await callStates(server)).get(id), `failed ${logged.length}`);
  });

  test('a tenant deleted while its call is in flight: nothing is recorded, the worker goes on delivering', async (t) => {
    const server = await deliveringServer(t);
    const receiver = await startReceiver(t, (_call, n) => (n === 0 ? 'hold' : 200));
    const changes = await validatedSandbox(server);
    await endpointOf(server, receiver.url);
    await sendToPayroll(server, changes.slice(0, 1));
    await until('the call is in flight', () => receiver.calls.length === 1);
    assert.equal((await server.call('DELETE', '/admin/v1/tenants/sb', { bearer: TOKEN })).status, 204);
    await new Promise<void>((resolve) => setImmediate(resolve));
    const again = await validatedSandbox(server);
    await endpointOf(server, receiver.url);
    await sendToPayroll(server, again.slice(0, 1));
    await until('a call of the new tenant is delivered', async () => [...(await callStates(server)).values()].join() === 'delivered 1', 30_000);
    assert.equal(Number(await server.sql.value('SELECT count(*) FROM webhook_attempts')), 1, 'only the new tenant\'s attempt: none of the deleted one');
  });

  test('calls to an endpoint that does not answer hold a slot each, not the others\' calls: a later change\'s calls to another endpoint are delivered meanwhile', async (t) => {
    // The receiver first: its end (which cuts the held calls) comes before the server's, which waits for them.
    const receiver = await startReceiver(t, (call) => (call.path.endsWith('?silent') ? 'hold' : 204));
    const server = await deliveringServer(t, { timeoutMs: 60_000 });
    const changes = await validatedSandbox(server);
    const [first, later] = [changes.slice(0, 1), changes.slice(1)];
    const silent = await endpointOf(server, `${receiver.url}?silent`);
    await sendToPayroll(server, first);
    await until('the silent endpoint\'s calls are in flight', () => receiver.calls.length === first.length);
    await endpointOf(server, receiver.url);
    await sendToPayroll(server, later);
    const states = async () => (await server.sql.rows('SELECT endpoint_id, state, attempts FROM webhook_calls')).map(([endpoint, state, attempts]) => `${endpoint === silent.id ? 'silent' : 'answering'} ${String(state)} ${Number(attempts)}`);
    await until('the answering endpoint\'s calls are delivered', async () => (await states()).filter((state) => state === 'answering delivered 1').length === later.length);
    assert.equal(receiver.calls.filter((call) => call.path.endsWith('?silent')).length, changes.length, 'every call of the silent endpoint is in flight at once');
    assert.deepEqual((await states()).filter((state) => state.startsWith('silent')), changes.map(() => 'silent pending 0'), 'none answered yet');
  });
});
