import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildFixture } from '../support/fixture.js';
import { serveDatabase, shared, startTestServer, type TestServer } from '../support/harness.js';
import { captureLogs } from '../support/logCapture.js';
import { until } from '../support/until.js';

const TOKEN = 'admin-token-0123456789abcdef';
/** A sweep interval no test waits for: the tests that need a sweep ask for one (`sweep`). */
const NEVER = 24 * 3600 * 1000;

const create = (server: Pick<TestServer, 'call'>, json: Record<string, unknown>) => server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json });
const setTtl = (server: TestServer, name: string, ttl: number | null) => server.call('POST', `/admin/v1/tenants/${name}/ttl`, { bearer: TOKEN, json: { ttl_seconds: ttl } });

/** The `expires_at` that `GET /admin/v1/tenants` shows for `name`; `undefined` when no tenant has the name. */
async function listedExpiry(server: Pick<TestServer, 'call'>, name: string): Promise<string | null | undefined> {
  const page = await server.call('GET', '/admin/v1/tenants?limit=1000', { bearer: TOKEN });
  assert.equal(page.status, 200);
  return (page.body.data as { name: string; expires_at: string | null }[]).find((tenant) => tenant.name === name)?.expires_at;
}

const ms = (iso: string | null | undefined): number => Date.parse(String(iso));

describe('the time to live of sandboxes', () => {
  /**
   * A server that never sweeps by itself, for the tests that ask for no other option: each uses
   * sandboxes of names of its own, and none of them expires while another test runs.
   */
  const unswept = shared((scope) =>
    startTestServer(scope, { adminToken: TOKEN, sandboxes: { sweepEveryMs: NEVER } }, async (store) => {
      await buildFixture(store, { tenant: 'seeded', users: 2, records: 3, deals: 0 });
    }),
  );

  test('an expired sandbox is removed by the server itself and its key is refused; one not expired, one without expiry and a seeded tenant stay', async (t) => {
    const logs = captureLogs('info');
    const server = await startTestServer(t, { adminToken: TOKEN, logger: logs.logger, sandboxes: { sweepEveryMs: 50 } }, async (store) => {
      await buildFixture(store, { tenant: 'seeded', users: 2, records: 3, deals: 0 });
    });
    // The sandboxes that stay first: the one that expires is made last and read at once, so that
    // a loaded machine's slow creates do not end its second of life before its key is tried.
    const long = await create(server, { name: 'long', users: 2, records: 3, ttl_seconds: 3600 });
    const forever = await create(server, { name: 'forever', users: 2, records: 3, ttl_seconds: null });
    assert.equal(forever.body.tenant.expires_at, null);
    const short = await create(server, { name: 'short', users: 2, records: 3, ttl_seconds: 2 });
    assert.equal(short.status, 201, short.text);
    assert.equal(ms(short.body.tenant.expires_at) - ms(short.body.tenant.created_at), 2000);
    const key = short.body.key.key as string;
    assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key })).status, 200);

    await until('the expired sandbox is gone', async () => (await listedExpiry(server, 'short')) === undefined);
    assert.ok(Date.now() >= ms(short.body.tenant.expires_at), 'not before it expired');
    assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key })).status, 401);
    assert.equal((await server.call('GET', '/admin/v1/tenants/short/keys', { bearer: TOKEN })).status, 404);
    for (const name of ['long', 'forever', 'seeded']) assert.notEqual(await listedExpiry(server, name), undefined, name);
    assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key: long.body.key.key })).status, 200);
    const removed = logs.entries().filter((entry) => entry.msg === 'sandbox expired: removed with its keys and data');
    assert.deepEqual(removed.map((entry) => [entry.level, entry.tenant]), [['info', 'short']], 'one line per sandbox removed');
  });

  test('without ttl_seconds, the server default; ttl_seconds outside 1..31536000 is a 400', async (t) => {
    const server = await startTestServer(t, { adminToken: TOKEN, sandboxes: { ttlSeconds: 120, sweepEveryMs: NEVER } });
    const made = await create(server, { name: 'default', users: 1, records: 0 });
    assert.equal(made.status, 201);
    assert.equal(ms(made.body.tenant.expires_at) - ms(made.body.tenant.created_at), 120_000);
    assert.equal(await listedExpiry(server, 'default'), made.body.tenant.expires_at, 'listed as answered');
    const copy = await create(server, { name: 'copy', template: 'default', ttl_seconds: 60 });
    assert.equal(copy.status, 201);
    assert.equal(ms(copy.body.tenant.expires_at) - ms(copy.body.tenant.created_at), 60_000);
    for (const ttl of [0, -1, 31_536_001, 1.5, '60']) {
      const refused = await create(server, { name: 'bad', ttl_seconds: ttl });
      assert.equal(refused.status, 400, String(ttl));
      assert.equal(refused.body.errors[0].pointer, '/ttl_seconds');
    }
    assert.equal(await listedExpiry(server, 'bad'), undefined, 'nothing made');
  });

  test('POST /admin/v1/tenants/{name}/ttl moves the expiry, counted from now; an extended sandbox is not swept; 404, 409 and 400 as documented', async () => {
    const server = await unswept();
    const made = await create(server, { name: 'sb', users: 2, records: 3, ttl_seconds: 1 });
    const before = Date.now();
    const extended = await setTtl(server, 'sb', 7200);
    const after = Date.now();
    assert.equal(extended.status, 200, extended.text);
    assert.equal(extended.body.name, 'sb');
    assert.equal(extended.body.ttl_seconds, 7200);
    const expiry = ms(extended.body.expires_at);
    assert.ok(expiry >= before + 7_200_000 && expiry <= after + 7_200_000, extended.body.expires_at);
    assert.equal(await listedExpiry(server, 'sb'), extended.body.expires_at);

    await until('the first expiry has passed', () => Date.now() > ms(made.body.tenant.expires_at));
    assert.equal(await server.sweep!(), 0);
    assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key: made.body.key.key })).status, 200, 'still there');

    const never = await setTtl(server, 'sb', null);
    assert.deepEqual(never.body, { name: 'sb', ttl_seconds: null, expires_at: null });
    assert.equal(await listedExpiry(server, 'sb'), null);

    const unknown = await setTtl(server, 'nobody', 60);
    assert.equal(unknown.status, 404);
    const notSandbox = await setTtl(server, 'seeded', 60);
    assert.equal(notSandbox.status, 409);
    assert.equal(await listedExpiry(server, 'seeded'), null, 'nothing changed');
    assert.equal((await server.call('POST', '/admin/v1/tenants/sb/ttl', { bearer: TOKEN, json: {} })).status, 400);
    assert.equal((await setTtl(server, 'sb', 0)).status, 400);
    assert.equal((await server.call('POST', '/admin/v1/tenants/sb/ttl', { json: { ttl_seconds: 60 } })).status, 401);
  });

  test('a reset restarts the clock with the time to live last set', async () => {
    const server = await unswept();
    const made = await create(server, { name: 'sb-reset', users: 2, records: 3, ttl_seconds: 3600 });
    await until('the clock has moved past the creation', () => Date.now() > ms(made.body.tenant.created_at) + 5);
    const before = Date.now();
    assert.equal((await server.call('POST', '/admin/v1/tenants/sb-reset/reset', { bearer: TOKEN })).status, 204);
    const afterReset = ms(await listedExpiry(server, 'sb-reset'));
    assert.ok(afterReset >= before + 3_600_000 && afterReset <= Date.now() + 3_600_000, 'counted from the reset');
    assert.ok(afterReset > ms(made.body.tenant.expires_at));

    assert.equal((await setTtl(server, 'sb-reset', 60)).status, 200);
    const beforeSecond = Date.now();
    assert.equal((await server.call('POST', '/admin/v1/tenants/sb-reset/reset', { bearer: TOKEN })).status, 204);
    const second = ms(await listedExpiry(server, 'sb-reset'));
    assert.ok(second >= beforeSecond + 60_000 && second <= Date.now() + 60_000, 'the time to live last set, from the reset');

    assert.equal((await setTtl(server, 'sb-reset', null)).status, 200);
    assert.equal((await server.call('POST', '/admin/v1/tenants/sb-reset/reset', { bearer: TOKEN })).status, 204);
    assert.equal(await listedExpiry(server, 'sb-reset'), null, 'no expiry stays none');
  });

  test('reads of the public API, and writes, never extend a sandbox', async () => {
    const server = await unswept();
    const made = await create(server, { name: 'sb-reads', users: 3, records: 5, ttl_seconds: 3600 });
    const key = made.body.key.key as string;
    const stored = async () => server.sql.rows('SELECT ttl_seconds, expires_at FROM sandbox_recipes WHERE tenant_id = (SELECT id FROM tenants WHERE name = ?)', 'sb-reads');
    const before = await stored();
    await until('the clock has moved past the creation', () => Date.now() > ms(made.body.tenant.created_at) + 5);
    for (const path of ['/v1/reporting?limit=2', '/v1/users/groups', '/v1/users/managers', '/v1/reporting?changed_since=0', '/v2/statements']) {
      const read = await server.call('GET', path, { key });
      assert.ok(read.status === 200 || read.status === 404, `${path}: ${read.status}`);
    }
    const user = { email: 'new@example.com' };
    assert.equal((await server.call('PUT', '/v1/users/bulk', { key, json: { data: [user] } })).status, 200);
    assert.deepEqual(await stored(), before);
    assert.equal(await listedExpiry(server, 'sb-reads'), made.body.tenant.expires_at);
  });

  test('two servers over one database: one sweeps at a time; the other takes over once the first has stopped', async (t) => {
    const first = await startTestServer(t, { adminToken: TOKEN, sandboxes: { sweepEveryMs: NEVER } });
    const second = await serveDatabase(first.database, { adminToken: TOKEN, sandboxes: { sweepEveryMs: NEVER } });
    let secondClosed = false;
    t.after(async () => void (secondClosed || (await second.close())));
    for (const name of ['a', 'b', 'c']) assert.equal((await create(first, { name, users: 1, records: 0, ttl_seconds: 1 })).status, 201);
    await until('the sandboxes have expired', async () => Date.now() > ms(await listedExpiry(first, 'c')));
    // One after the other: two servers of one process would wait for each other's SQLite lock on
    // one thread (claims at once are the store's test, test/store/sandboxLease.test.ts).
    assert.equal(await second.sweep!(), 3, 'the first to sweep removes all three');
    assert.equal(await first.sweep!(), 0, 'nothing left to remove');
    assert.equal(await first.sql.value('SELECT count(*) FROM sandbox_recipes').then(Number), 0);

    // The holder stops (its lease given up): the other sweeps the next sandbox expired.
    assert.equal((await create(first, { name: 'd', users: 1, records: 0, ttl_seconds: 1 })).status, 201);
    await until('d has expired', async () => Date.now() > ms(await listedExpiry(first, 'd')));
    assert.equal(await first.sweep!(), 0, 'the holder\'s lease lasts');
    await second.close();
    secondClosed = true;
    assert.equal(await first.sweep!(), 1);
    assert.equal(await listedExpiry(first, 'd'), undefined);
  });
});
