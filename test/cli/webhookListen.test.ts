import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { startListener } from './webhookListener.js';

// `compdata webhooks listen`, the receiver `make demo` points to: run as users run it, sent calls
// signed as the delivery worker signs them (the standardwebhooks package), read back from its output.

const SIGNING_SECRET = `whsec_${Buffer.from('a signing secret of thirty-two b').toString('base64')}`;
const WRONG_SECRET = `whsec_${Buffer.from('another secret, not the endpoint').toString('base64')}`;
const BODY = JSON.stringify({
  type: 'statement.sent_to_payroll',
  timestamp: '2026-11-28T06:00:00Z',
  data: {
    statement: { id: 'stm_0123456789ab', user: { id: 'u1', email: 'ada@example.com' }, month: '2026-10', status: 'sent_to_payroll', total_commission: 12 },
    records: [{ id: 'r1' }, { id: 'r2' }, { id: 'r3' }],
  },
});

function signedHeaders(secret: string, id: string, body: string): Record<string, string> {
  const timestamp = new Date();
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, timestamp, body),
  };
}

test('the listener verifies a signed call and the X-Webhook-Secret header, prints the statement, and answers 204', async (t) => {
  const listener = await startListener(t, ['webhooks', 'listen', '--port', '0', '--signing-secret', SIGNING_SECRET, '--secret', 'the header secret']);
  const id = 'msg_0123456789abcdef01234567';
  const answer = await fetch(listener.url, { method: 'POST', headers: { ...signedHeaders(SIGNING_SECRET, id, BODY), 'x-webhook-secret': 'the header secret' }, body: BODY });
  assert.equal(answer.status, 204);
  const line = await listener.nextLine();
  assert.match(line, new RegExp(`${id} statement\\.sent_to_payroll stm_0123456789ab ada@example\\.com 2026-10: 3 record\\(s\\); signature verified; X-Webhook-Secret matches -> 204$`));
});

test('a call signed with another secret, or with a wrong X-Webhook-Secret, is answered 401 and printed as such', async (t) => {
  const listener = await startListener(t, ['webhooks', 'listen', '--port', '0', '--signing-secret', SIGNING_SECRET, '--secret', 'the header secret']);
  const forged = await fetch(listener.url, { method: 'POST', headers: { ...signedHeaders(WRONG_SECRET, 'msg_000000000000000000000001', BODY), 'x-webhook-secret': 'the header secret' }, body: BODY });
  assert.equal(forged.status, 401);
  assert.match(await listener.nextLine(), /msg_000000000000000000000001 .*signature INVALID .*X-Webhook-Secret matches -> 401$/);
  const wrongHeader = await fetch(listener.url, { method: 'POST', headers: { ...signedHeaders(SIGNING_SECRET, 'msg_000000000000000000000002', BODY), 'x-webhook-secret': 'a guess' }, body: BODY });
  assert.equal(wrongHeader.status, 401);
  assert.match(await listener.nextLine(), /msg_000000000000000000000002 .*signature verified; X-Webhook-Secret WRONG -> 401$/);
});

test('--fail-first answers 500 to the first calls that pass the checks, then 204', async (t) => {
  const listener = await startListener(t, ['webhooks', 'listen', '--port', '0', '--fail-first', '2']);
  const statuses: number[] = [];
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const answer = await fetch(listener.url, { method: 'POST', headers: signedHeaders(SIGNING_SECRET, 'msg_00000000000000000000000a', BODY), body: BODY });
    statuses.push(answer.status);
    assert.match(await listener.nextLine(), /msg_00000000000000000000000a .*signature not checked/);
  }
  assert.deepEqual(statuses, [500, 500, 204]);
});
