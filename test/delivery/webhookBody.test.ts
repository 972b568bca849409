import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { webhookBody } from '../../src/delivery/webhookBody.js';
import { webhookHeaders } from '../../src/delivery/webhookHeaders.js';
import { statementId } from '../../src/domain/statements.js';
import type { CallStatement, ClaimedCall } from '../../src/store/vocabulary/deliveryShapes.js';
import { assertWebhookCall } from '../support/contract.js';
import { NO_FAULTS } from '../../src/domain/webhookFaults.js';

const SIGNING = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const PREVIOUS = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
const MARCH_2026 = 2026 * 12 + 2;
const record = (n: number) =>
  JSON.stringify({ 'standard.id': `r${n}`, 'standard.user': { id: 'usr_1', email: 'ada@example.com' }, 'standard.date': '2026-03-04', 'standard.last_modified_at': '2026-03-05T00:00:00.000Z' });
const statement = (records: number): CallStatement => ({
  userId: 'usr_1',
  email: 'ada@example.com',
  month: MARCH_2026,
  fieldsV2: ',"standard.status":"sent_to_payroll","standard.total_commission":{"value":12.5,"currency":"EUR"}',
  records: Array.from({ length: records }, (_, n) => record(n)).join(','),
  recordCount: records,
});
const call = (records: number, previous: string | null = null): ClaimedCall & { statement: CallStatement } => ({
  tenantId: 1,
  id: 'msg_0123456789abcdef01234567',
  event: 'statement.sent_to_payroll',
  createdAt: '2026-03-31T12:00:00.000Z',
  attempts: 0,
  seriesFrom: 0,
  endpoint: { id: 'whe_0123456789ab', url: 'http://127.0.0.1:9/hook', secretHeader: true, secret: 'a'.repeat(64), signingSecret: SIGNING, previousSigningSecret: previous, faults: NO_FAULTS },
  statement: statement(records),
});
const headersOf = (made: ClaimedCall, body: string) => Object.fromEntries(Object.entries(webhookHeaders(made.id, made.endpoint, body, new Date())).map(([name, value]) => [name.toLowerCase(), value]));

describe('the body and headers of a webhook call', () => {
  test('the statement, its status and total from the fields its records carry, and the records as rendered', () => {
    const made = call(3);
    const body = webhookBody(made);
    const parsed = assertWebhookCall(headersOf(made, body), body);
    assert.deepEqual(parsed.data.statement, {
      id: statementId('usr_1', MARCH_2026),
      user: { id: 'usr_1', email: 'ada@example.com' },
      month: '2026-03',
      status: 'sent_to_payroll',
      total_commission: { value: 12.5, currency: 'EUR' },
    });
    assert.deepEqual(parsed.data.records, [0, 1, 2].map((n) => JSON.parse(record(n))));
    assert.equal(parsed.timestamp, made.createdAt);
  });

  const capped: [string, { records: number; cap: number; omitted: boolean }][] = [
    ['under the cap: the records', { records: 3, cap: 2_000, omitted: false }],
    ['over the cap: none, and where to read them', { records: 30, cap: 2_000, omitted: true }],
    ['the default cap, 1 MiB, holds a few thousand records', { records: 4_000, cap: 1024 * 1024, omitted: false }],
    ['past 1 MiB: left out', { records: 8_000, cap: 1024 * 1024, omitted: true }],
  ];
  for (const [name, { records, cap, omitted }] of capped) {
    test(name, () => {
      const made = call(records);
      const body = cap === 1024 * 1024 ? webhookBody(made) : webhookBody(made, cap);
      const parsed = assertWebhookCall(headersOf(made, body), body);
      assert.ok(Buffer.byteLength(body) <= cap);
      if (!omitted) return assert.equal(parsed.data.records.length, records);
      assert.deepEqual(parsed.data.records, []);
      assert.deepEqual(parsed.data.records_omitted, { count: records, reason: 'body_too_large', read: '/v1/reporting?user=ada%40example.com&date_from=2026-03-01&date_to=2026-03-31' });
    });
  }

  test('signed with the signing secret; during a grace with both, each signature verifying; X-Webhook-Secret unless turned off', () => {
    const made = call(1, PREVIOUS);
    const body = webhookBody(made);
    const headers = headersOf(made, body);
    assert.equal(headers['webhook-signature']!.split(' ').length, 2);
    for (const secret of [SIGNING, PREVIOUS]) assert.doesNotThrow(() => new Webhook(secret).verify(body, headers));
    assert.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 3).toString('base64')}`).verify(body, headers));
    assert.equal(headers['x-webhook-secret'], 'a'.repeat(64));
    const quiet = { ...made, endpoint: { ...made.endpoint, secretHeader: false, previousSigningSecret: null } };
    const quietHeaders = headersOf(quiet, body);
    assert.equal(quietHeaders['x-webhook-secret'], undefined);
    assert.equal(quietHeaders['webhook-signature']!.split(' ').length, 1);
  });
});
