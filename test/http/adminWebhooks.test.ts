import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestServer } from '../support/harness.js';

const TOKEN = 'admin-token-0123456789abcdef';
const hooks = '/admin/v1/tenants/sb/webhooks';
const wanted = { url: 'https://payroll.example.com/compdata', events: ['statement.sent_to_payroll'] };
type Json = Record<string, any>;

describe('webhook endpoints of a tenant', () => {
  test('made with secrets shown once; listed, changed and deleted without them [conf:webhook-setup]', async (t) => {
    const server = await startTestServer(t, { adminToken: TOKEN });
    assert.equal((await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: 'sb', users: 3, records: 10 } })).status, 201);
    const made = await server.call('POST', hooks, { bearer: TOKEN, json: wanted });
    assert.equal(made.status, 201, made.text);
    assert.match(made.body.id, /^whe_[0-9a-f]{12}$/);
    assert.match(made.body.secret, /^[0-9a-f]{64}$/);
    assert.match(made.body.signing_secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual([made.body.enabled, made.body.secret_header, made.body.previous_secrets_valid_until], [true, true, null]);
    const other = await server.call('POST', hooks, { bearer: TOKEN, json: { ...wanted, enabled: false, secret_header: false } });
    assert.notEqual(other.body.secret, made.body.secret);

    const listed = await server.call('GET', hooks, { bearer: TOKEN });
    assert.deepEqual(
      listed.body.data.map((endpoint: Json) => [endpoint.id, endpoint.enabled, 'secret' in endpoint, 'signing_secret' in endpoint]),
      [
        [made.body.id, true, false, false],
        [other.body.id, false, false, false],
      ].sort(),
    );
    const changed = await server.call('PATCH', `${hooks}/${made.body.id}`, { bearer: TOKEN, json: { enabled: false, url: 'http://payroll.example.net:9/hook' } });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual([changed.body.enabled, changed.body.url, changed.body.events], [false, 'http://payroll.example.net:9/hook', wanted.events]);

    assert.equal((await server.call('DELETE', `${hooks}/${other.body.id}`, { bearer: TOKEN })).status, 204);
    assert.equal((await server.call('DELETE', `${hooks}/${other.body.id}`, { bearer: TOKEN })).status, 404);
    assert.equal((await server.call('PATCH', `${hooks}/${other.body.id}`, { bearer: TOKEN, json: { enabled: true } })).status, 404);
    assert.deepEqual(
      (await server.call('GET', hooks, { bearer: TOKEN })).body.data.map((endpoint: Json) => endpoint.id),
      [made.body.id],
    );
    assert.equal((await server.call('GET', '/admin/v1/tenants/nobody/webhooks', { bearer: TOKEN })).status, 404);
    assert.equal((await server.call('POST', '/admin/v1/tenants/nobody/webhooks', { bearer: TOKEN, json: wanted })).status, 404);
    const bad: [string, unknown][] = [
      ['no URL', { events: wanted.events }],
      ['not http', { ...wanted, url: 'ftp://payroll.example.com/' }],
      ['an unknown event', { ...wanted, events: ['statement.paid'] }],
      ['an unknown field', { ...wanted, secret: 'mine' }],
    ];
    for (const [name, json] of bad) assert.equal((await server.call('POST', hooks, { bearer: TOKEN, json })).status, 400, name);
    assert.equal((await server.call('PATCH', `${hooks}/${made.body.id}`, { bearer: TOKEN, json: {} })).status, 400, 'an empty change');
    assert.equal((await server.call('GET', hooks)).status, 401);
  });

  test('a rotation gives new values of both secrets; the old ones stay valid for the grace, stored with its end', async (t) => {
    const server = await startTestServer(t, { adminToken: TOKEN });
    await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: 'sb', users: 2, records: 4 } });
    const made = (await server.call('POST', hooks, { bearer: TOKEN, json: wanted })).body;
    const asked = Date.now();
    const rotated = await server.call('POST', `${hooks}/${made.id}/rotate`, { bearer: TOKEN, json: { grace_seconds: 3600 } });
    assert.equal(rotated.status, 200, rotated.text);
    assert.notEqual(rotated.body.secret, made.secret);
    assert.notEqual(rotated.body.signing_secret, made.signing_secret);
    const until = Date.parse(rotated.body.previous_secrets_valid_until);
    assert.ok(until >= asked + 3600_000 && until <= Date.now() + 3600_000, rotated.body.previous_secrets_valid_until);
    const stored = await server.sql.rows(`SELECT secret, signing_secret, previous_secret, previous_signing_secret FROM webhook_endpoints`);
    assert.deepEqual(stored, [[rotated.body.secret, rotated.body.signing_secret, made.secret, made.signing_secret]]);
    assert.equal((await server.call('GET', hooks, { bearer: TOKEN })).body.data[0].previous_secrets_valid_until, rotated.body.previous_secrets_valid_until);

    const withoutGrace = await server.call('POST', `${hooks}/${made.id}/rotate`, { bearer: TOKEN, json: { grace_seconds: 0 } });
    assert.equal(withoutGrace.body.previous_secrets_valid_until, null);
    const byDefault = await server.call('POST', `${hooks}/${made.id}/rotate`, { bearer: TOKEN });
    assert.ok(Date.parse(byDefault.body.previous_secrets_valid_until) >= asked + 86_400_000);
    assert.equal((await server.call('POST', `${hooks}/whe_000000000000/rotate`, { bearer: TOKEN })).status, 404);
    assert.equal((await server.call('POST', `${hooks}/${made.id}/rotate`, { bearer: TOKEN, json: { grace_seconds: 604801 } })).status, 400);
  });

  test('a statement sent to payroll writes a call per enabled endpoint that wants it; a reset keeps the endpoints, drops the pending calls and puts the statuses back', async (t) => {
    const server = await startTestServer(t, { adminToken: TOKEN });
    await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: 'sb', users: 3, records: 30, seed: 7 } });
    const endpoints = [];
    for (const json of [wanted, wanted, { ...wanted, enabled: false }, { ...wanted, events: [] }]) endpoints.push((await server.call('POST', hooks, { bearer: TOKEN, json })).body.id);
    // The seed's last month (2026-03) is draft: validated, then sent to payroll.
    const march = { period: { start_date: '2026-03', end_date: '2026-03' } };
    const validated = await server.call('POST', '/admin/v1/tenants/sb/statements/status', { bearer: TOKEN, json: { status: 'validated', ...march } });
    assert.ok(validated.body.count > 0, validated.text);
    assert.equal(validated.body.calls, 0);
    const sent = await server.call('POST', '/admin/v1/tenants/sb/statements/status', { bearer: TOKEN, json: { status: 'sent_to_payroll', ...march } });
    assert.equal(sent.body.count, validated.body.count);
    assert.equal(sent.body.calls, 2 * sent.body.count);
    const calls = async () => (await server.sql.rows(`SELECT endpoint_id, state FROM webhook_calls ORDER BY seq`)).map(([endpoint, state]) => `${String(endpoint)} ${String(state)}`);
    assert.deepEqual(
      (await calls()).sort(),
      endpoints
        .slice(0, 2)
        .flatMap((id) => Array.from({ length: sent.body.count }, () => `${id} pending`))
        .sort(),
    );
    const statuses = async () => (await server.sql.rows(`SELECT status, count(*) FROM statements GROUP BY status ORDER BY status`)).map(([status, n]) => `${String(status)} ${Number(n)}`);
    assert.ok((await statuses()).some((row) => row.startsWith('sent_to_payroll')));

    assert.equal((await server.call('POST', '/admin/v1/tenants/sb/reset', { bearer: TOKEN })).status, 204);
    assert.deepEqual(await calls(), []);
    assert.deepEqual(
      (await server.call('GET', hooks, { bearer: TOKEN })).body.data.map((endpoint: Json) => endpoint.id),
      [...endpoints].sort(),
    );
    const again = await server.call('POST', '/admin/v1/tenants/sb/statements/status', { bearer: TOKEN, json: { status: 'sent_to_payroll', ...march } });
    assert.equal(again.body.count, 0, 'the statements of March are draft again, as the sandbox was made');
  });
});
