import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TestServer } from '../support/harness.js';
import { ADMIN_TOKEN, deliveringServer, endpointOf, sendToPayroll, validatedSandbox } from '../support/deliveringSandbox.js';
import { until } from '../support/until.js';
import { startReceiver } from '../support/webhookReceiver.js';

const TOKEN = ADMIN_TOKEN;
const hooks = '/admin/v1/tenants/sb/webhooks';


/** The calls by seq: id, state and attempts; and each one's attempts with the fault that shaped them. */
const calls = async (server: TestServer) =>
  (await server.sql.rows('SELECT id, seq, state, attempts FROM webhook_calls ORDER BY seq')).map(([id, seq, state, attempts]) => ({ id: String(id), seq: Number(seq), state: `${String(state)} ${Number(attempts)}` }));
const attemptsOf = async (server: TestServer, id: string) =>
  (await server.sql.rows('SELECT attempt, status, fault, body FROM webhook_attempts WHERE call_id = ? ORDER BY attempt', id)).map(([attempt, status, fault, body]) => ({
    attempt: Number(attempt),
    status: status === null ? null : Number(status),
    fault: fault as string | null,
    body: String(body),
  }));

describe('faults for receivers\' tests', () => {
  test('faults are off by default, set at create, replaced whole by a change ({} turns them off), and bounded [conf:webhook-faults]', async (t) => {
    const server = await deliveringServer(t);
    await validatedSandbox(server);
    const plain = await endpointOf(server, 'http://127.0.0.1:9/hook');
    assert.deepEqual(plain.faults, { duplicate: 0, reorder: 0, delay_ms: 0 });
    const faulty = await endpointOf(server, 'http://127.0.0.1:9/faulty', { faults: { duplicate: 0.2, delay_ms: 500 } });
    assert.deepEqual(faulty.faults, { duplicate: 0.2, reorder: 0, delay_ms: 500 });
    const changed = await server.call('PATCH', `${hooks}/${faulty.id}`, { bearer: TOKEN, json: { faults: { reorder: 1 } } });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(changed.body.faults, { duplicate: 0, reorder: 1, delay_ms: 0 });
    const renamed = await server.call('PATCH', `${hooks}/${faulty.id}`, { bearer: TOKEN, json: { enabled: false } });
    assert.deepEqual(renamed.body.faults, { duplicate: 0, reorder: 1, delay_ms: 0 }, 'a change without faults keeps them');
    const off = await server.call('PATCH', `${hooks}/${faulty.id}`, { bearer: TOKEN, json: { faults: {} } });
    assert.deepEqual(off.body.faults, { duplicate: 0, reorder: 0, delay_ms: 0 });
    await server.call('GET', hooks, { bearer: TOKEN });
    for (const [given, why] of [
      [{ duplicate: 1.5 }, 'a probability above 1'],
      [{ reorder: -0.1 }, 'a negative probability'],
      [{ delay_ms: 10_001 }, 'a delay above 10 s'],
      [{ delay_ms: 2.5 }, 'a delay not in whole milliseconds'],
      [{ drop: 0.5 }, 'an unknown fault'],
    ] as const) {
      const refused = await server.call('POST', hooks, { bearer: TOKEN, json: { url: 'http://127.0.0.1:9/hook', events: ['statement.sent_to_payroll'], faults: given } });
      assert.equal(refused.status, 400, `${why}: ${refused.text}`);
    }
    assert.equal((await server.call('GET', hooks, { bearer: TOKEN })).body.data.length, 2, 'nothing refused was made');
  });

  test('without faults each call arrives once, and its attempt names no fault', async (t) => {
    const server = await deliveringServer(t);
    const receiver = await startReceiver(t);
    const changes = await validatedSandbox(server);
    await endpointOf(server, receiver.url);
    await sendToPayroll(server, changes.slice(0, 2));
    await until('both calls are delivered', async () => (await calls(server)).every(({ state }) => state === 'delivered 1'));
    assert.equal(receiver.calls.length, 2);
    for (const { id } of await calls(server)) assert.deepEqual((await attemptsOf(server, id)).map(({ fault }) => fault), [null]);
  });

  test('duplicate=1: every call arrives twice with the same webhook-id, headers and body; the second is an attempt marked duplicate', async (t) => {
    const server = await deliveringServer(t);
    const receiver = await startReceiver(t);
    const changes = await validatedSandbox(server);
    await endpointOf(server, receiver.url, { faults: { duplicate: 1 } });
    await sendToPayroll(server, changes.slice(0, 2));
    await until('both calls are delivered and duplicated', async () => (await calls(server)).every(({ state }) => state === 'delivered 2'));
    await until('four arrivals', () => receiver.calls.length === 4);
    for (const { id } of await calls(server)) {
      const arrived = receiver.calls.filter((call) => call.headers['webhook-id'] === id);
      assert.equal(arrived.length, 2, `the call ${id} arrived twice`);
      assert.equal(arrived[0]!.body, arrived[1]!.body);
      assert.equal(arrived[0]!.headers['webhook-signature'], arrived[1]!.headers['webhook-signature']);
      assert.equal(arrived[0]!.headers['webhook-timestamp'], arrived[1]!.headers['webhook-timestamp']);
      const logged = await attemptsOf(server, id);
      assert.deepEqual(logged.map(({ attempt, status, fault }) => [attempt, status, fault]), [[1, 204, null], [2, 204, 'duplicate']]);
      assert.equal(logged[1]!.body, arrived[1]!.body);
    }
  });

  test('reorder=1: a call is held back until the endpoint\'s next call was answered, so the receiver sees them against their seq', async (t) => {
    const server = await deliveringServer(t);
    const receiver = await startReceiver(t);
    const changes = await validatedSandbox(server);
    await endpointOf(server, receiver.url, { faults: { reorder: 1 } });
    await sendToPayroll(server, changes.slice(0, 1));
    await sendToPayroll(server, changes.slice(1, 2));
    await until('both calls are delivered', async () => (await calls(server)).every(({ state }) => state === 'delivered 1'));
    const [earlier, later] = await calls(server);
    assert.ok(earlier!.seq < later!.seq);
    assert.deepEqual(receiver.calls.map((call) => call.headers['webhook-id']), [later!.id, earlier!.id], 'the later call arrived first');
    assert.deepEqual((await attemptsOf(server, earlier!.id)).map(({ fault }) => fault), ['reorder']);
    assert.deepEqual((await attemptsOf(server, later!.id)).map(({ fault }) => fault), [null]);
  });

  test('reorder=1 with no later call: the held call is sent anyway, nothing lost', async (t) => {
    const server = await deliveringServer(t);
    const receiver = await startReceiver(t);
    const changes = await validatedSandbox(server);
    await endpointOf(server, receiver.url, { faults: { reorder: 1 } });
    await sendToPayroll(server, changes.slice(0, 1));
    await until('the held call is delivered', async () => (await calls(server)).every(({ state }) => state === 'delivered 1'), 10_000);
    assert.equal(receiver.calls.length, 1);
  });

  test('delay_ms: no call is sent before the delay from its status change; its attempt names the delay', async (t) => {
    const server = await deliveringServer(t);
    const receiver = await startReceiver(t);
    const changes = await validatedSandbox(server);
    await endpointOf(server, receiver.url, { faults: { delay_ms: 400 } });
    const changedAt = Date.now();
    await sendToPayroll(server, changes.slice(0, 1));
    const arrived = await until('the call arrived', () => receiver.calls[0]);
    assert.ok(arrived.at - changedAt >= 400, `arrived ${arrived.at - changedAt} ms after the change`);
    await until('the call is delivered', async () => (await calls(server))[0]?.state === 'delivered 1');
    assert.deepEqual((await attemptsOf(server, (await calls(server))[0]!.id)).map(({ fault }) => fault), ['delay=400ms']);
  });

  test('a change of statuses on this server sends its calls without waiting for the poll', async (t) => {
    const server = await deliveringServer(t, { pollMs: 600_000 });
    const receiver = await startReceiver(t);
    const changes = await validatedSandbox(server);
    await endpointOf(server, receiver.url);
    await sendToPayroll(server, changes.slice(0, 1));
    await until('the call arrived long before a poll', () => receiver.calls[0], 10_000);
  });
});
