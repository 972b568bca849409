import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ADMIN_TOKEN, deliveringServer, endpointOf, sendToPayroll, validatedSandbox } from '../support/deliveringSandbox.js';
import type { TestServer } from '../support/harness.js';
import { samplesOf, seriesKey } from '../support/prometheusText.js';
import { until } from '../support/until.js';
import { startReceiver } from '../support/webhookReceiver.js';

const scrape = async (server: TestServer) => {
  const answer = await server.call('GET', '/metrics');
  assert.equal(answer.status, 200, answer.text);
  return samplesOf(answer.text);
};
/** The webhook figures of a scrape: attempts by outcome, the pending calls, the oldest one's age. */
async function figures(server: TestServer) {
  const samples = await scrape(server);
  const attempts = (outcome: string) => samples.get(seriesKey('compdata_webhook_attempts_total', { outcome })) ?? 0;
  return {
    delivered: attempts('delivered'),
    retried: attempts('retried'),
    failed: attempts('failed'),
    pending: samples.get('compdata_webhook_calls_pending'),
    oldestSeconds: samples.get('compdata_webhook_oldest_pending_seconds'),
  };
}

describe('the metrics of webhook delivery', () => {
  test('attempts by outcome, the pending calls and the age of the oldest move as calls are delivered, retried and failed', async (t) => {
    const server = await deliveringServer(t, { attempts: 2, timeoutMs: 10_000, metrics: true });
    let release!: (status: number) => void;
    const gate = new Promise<number>((resolve) => (release = resolve));
    // /held: answered once released; /down: always 503.
    const receiver = await startReceiver(t, (call) => (call.path.endsWith('/down') ? 503 : gate));
    assert.deepEqual(await figures(server), { delivered: 0, retried: 0, failed: 0, pending: 0, oldestSeconds: 0 });

    const changes = await validatedSandbox(server);
    const held = await endpointOf(server, `${receiver.url}/held`);
    await endpointOf(server, `${receiver.url}/down`);
    await sendToPayroll(server, changes.slice(0, 2));
    await until('the calls to /down failed, each after two attempts', async () => (await figures(server)).failed === 2);
    await until('both held calls arrived', () => receiver.calls.filter((call) => call.path.endsWith('/held')).length === 2);
    const waiting = await figures(server);
    assert.deepEqual({ ...waiting, oldestSeconds: 0 }, { delivered: 0, retried: 2, failed: 2, pending: 2, oldestSeconds: 0 });
    assert.ok(waiting.oldestSeconds! > 0 && waiting.oldestSeconds! < 60, `the oldest pending call's age, in seconds: ${waiting.oldestSeconds}`);
    const later = await until('the age grows', async () => {
      const now = await figures(server);
      return now.oldestSeconds! > waiting.oldestSeconds! && now;
    });
    assert.equal(later.pending, 2);

    release(200);
    await until('both held calls are delivered', async () => (await figures(server)).delivered === 2);
    assert.deepEqual(await figures(server), { delivered: 2, retried: 2, failed: 2, pending: 0, oldestSeconds: 0 });

    const [call] = (await server.call('GET', `/admin/v1/tenants/sb/webhook-calls?endpoint=${held.id}&limit=1`, { bearer: ADMIN_TOKEN })).body.data;
    assert.equal((await server.call('POST', `/admin/v1/tenants/sb/webhook-calls/${call.id}/resend`, { bearer: ADMIN_TOKEN })).status, 202);
    await until('the resent call is delivered', async () => (await figures(server)).delivered === 3);
    assert.deepEqual(await figures(server), { delivered: 3, retried: 2, failed: 2, pending: 0, oldestSeconds: 0 });
  });
});
