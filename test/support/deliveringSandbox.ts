import assert from 'node:assert/strict';
import { DEFAULT_RETRIES } from '../../src/domain/webhookRetries.js';
import { startTestServer, type TestServer, type TestServerOptions } from './harness.js';

export const ADMIN_TOKEN = 'admin-token-0123456789abcdef';
type Json = Record<string, any>;

/**
 * A server that delivers webhook calls to 127.0.0.1 on a compressed schedule (waits of tens of
 * milliseconds, polls every `pollMs`, 20 by default), `attempts` to a series, each waiting `timeoutMs` at most.
 */
export const deliveringServer = (
  t: Parameters<typeof startTestServer>[0],
  { attempts = DEFAULT_RETRIES.attempts, timeoutMs = 2_000, pollMs = 20, ...options }: { attempts?: number; timeoutMs?: number; pollMs?: number } & TestServerOptions = {},
) => startTestServer(t, { ...options, adminToken: ADMIN_TOKEN, webhooks: { allowPrivate: true, pollMs, timeoutMs, retries: { ...DEFAULT_RETRIES, attempts, scale: 0.01 } } });

/** A sandbox `sb` of ten users whose statements of March are validated: their changes (user, month). */
export async function validatedSandbox(server: TestServer): Promise<Json[]> {
  const made = await server.call('POST', '/admin/v1/sandboxes', { bearer: ADMIN_TOKEN, json: { name: 'sb', users: 10, records: 100, seed: 7 } });
  assert.equal(made.status, 201, made.text);
  const validated = await server.call('POST', '/admin/v1/tenants/sb/statements/status', { bearer: ADMIN_TOKEN, json: { status: 'validated', period: { start_date: '2026-03', end_date: '2026-03' } } });
  assert.ok(validated.body.count >= 2, validated.text);
  return validated.body.data;
}

/** Sends the statements changed to payroll: one call per statement and endpoint. */
export async function sendToPayroll(server: TestServer, changes: Json[]): Promise<Json> {
  const sent = await server.call('POST', '/admin/v1/tenants/sb/statements/status', {
    bearer: ADMIN_TOKEN,
    json: { status: 'sent_to_payroll', statements: changes.map(({ user, month }) => ({ user, month })) },
  });
  assert.equal(sent.status, 200, sent.text);
  return sent.body;
}

/** A new endpoint of `sb` that wants `statement.sent_to_payroll`, with the settings in `extra`. */
export async function endpointOf(server: TestServer, url: string, extra: Json = {}): Promise<Json> {
  const made = await server.call('POST', '/admin/v1/tenants/sb/webhooks', { bearer: ADMIN_TOKEN, json: { url, events: ['statement.sent_to_payroll'], ...extra } });
  assert.equal(made.status, 201, made.text);
  return made.body;
}
