import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestServer } from '../support/harness.js';
import { captureLogs } from '../support/logCapture.js';

const TOKEN = 'admin-token-0123456789abcdef';
const hooks = '/admin/v1/tenants/sb/webhooks';
const events = ['statement.sent_to_payroll'];

/** URLs no endpoint may have on a server not started with `--webhook-allow-private`. */
const PRIVATE_URLS = [
  'http://127.0.0.1:9/hook',
  'http://localhost:8080/hook',
  'http://LocalHost./hook',
  'http://api.localhost/hook',
  'http://[::1]/hook',
  'http://[::ffff:127.0.0.1]/hook',
  'http://169.254.169.254/latest/meta-data/',
  'https://10.0.0.8/hook',
  'https://172.16.5.4/hook',
  'https://192.168.1.1/hook',
  'https://100.64.0.1/hook',
  'http://0.0.0.0/hook',
  'http://2130706433/hook',
  'https://[fd00::1]/hook',
  'https://[fe80::1]/hook',
  'http://224.0.0.1/hook',
];

describe('the URL of a webhook endpoint', () => {
  test('a private host or credentials in the URL: a 422 at create and change, nothing written', async (t) => {
    const server = await startTestServer(t, { adminToken: TOKEN });
    assert.equal((await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: 'sb', users: 2, records: 4 } })).status, 201);
    for (const url of [...PRIVATE_URLS, 'https://user:password@payroll.example.com/hook', 'https://user@payroll.example.com/hook']) {
      const refused = await server.call('POST', hooks, { bearer: TOKEN, json: { url, events } });
      assert.equal(refused.status, 422, `${url}: ${refused.text}`);
      assert.equal(refused.body.errors[0].pointer, '/body/url', url);
    }
    assert.deepEqual((await server.call('GET', hooks, { bearer: TOKEN })).body.data, []);
    assert.equal(Number((await server.sql.rows('SELECT count(*) FROM webhook_endpoints'))[0]![0]), 0);

    const made = await server.call('POST', hooks, { bearer: TOKEN, json: { url: 'https://payroll.example.com/hook', events } });
    assert.equal(made.status, 201, made.text);
    const changed = await server.call('PATCH', `${hooks}/${made.body.id}`, { bearer: TOKEN, json: { url: 'http://169.254.169.254/', enabled: false } });
    assert.equal(changed.status, 422, changed.text);
    assert.match(changed.body.errors[0].message, /linkLocal address 169\.254\.169\.254/);
    const listed = (await server.call('GET', hooks, { bearer: TOKEN })).body.data;
    assert.deepEqual(listed.map((endpoint: { url: string; enabled: boolean }) => [endpoint.url, endpoint.enabled]), [['https://payroll.example.com/hook', true]]);
    const public6 = await server.call('PATCH', `${hooks}/${made.body.id}`, { bearer: TOKEN, json: { url: 'https://[2606:4700::1111]/hook' } });
    assert.equal(public6.status, 200, public6.text);
  });

  test('a server started with --webhook-allow-private takes private hosts, still not credentials', async (t) => {
    const server = await startTestServer(t, { adminToken: TOKEN, webhooks: { allowPrivate: true } });
    await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: 'sb', users: 2, records: 4 } });
    for (const url of PRIVATE_URLS) {
      const made = await server.call('POST', hooks, { bearer: TOKEN, json: { url, events } });
      assert.equal(made.status, 201, `${url}: ${made.text}`);
    }
    assert.equal((await server.call('POST', hooks, { bearer: TOKEN, json: { url: 'http://me:pw@127.0.0.1/', events } })).status, 422);
    assert.equal((await server.call('GET', hooks, { bearer: TOKEN })).body.data.length, PRIVATE_URLS.length);
  });

  test('no log line holds a secret, at debug either: the create and the rotation that show them are logged without bodies', async (t) => {
    const logs = captureLogs('debug');
    const server = await startTestServer(t, { adminToken: TOKEN, logger: logs.logger });
    await server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json: { name: 'sb', users: 2, records: 4 } });
    const made = await server.call('POST', hooks, { bearer: TOKEN, json: { url: 'https://payroll.example.com/hook', events } });
    const rotated = await server.call('POST', `${hooks}/${made.body.id}/rotate`, { bearer: TOKEN, json: { grace_seconds: 60 } });
    assert.deepEqual([made.status, rotated.status], [201, 200]);
    const secrets = [made.body.secret, made.body.signing_secret, rotated.body.secret, rotated.body.signing_secret] as string[];
    assert.equal(new Set(secrets).size, 4);
    const requests = logs.entries().filter((line) => line.msg === 'request' && String(line.path).startsWith(hooks));
    assert.deepEqual(
      requests.map((line) => [line.method, line.status]),
      [
        ['POST', 201],
        ['POST', 200],
      ],
      'the two requests were logged (the capture works)',
    );
    assert.ok(requests.every((line) => line.headers?.authorization === '[redacted]'), 'at debug the headers are logged, the token redacted');
    const text = logs.text();
    for (const secret of [...secrets, TOKEN, secrets[1]!.slice('whsec_'.length)]) assert.ok(!text.includes(secret), `a log line holds ${secret.slice(0, 10)}…`);
  });
});
