import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { ProblemError } from '../../src/client/index.js';
import { createSandbox, SANDBOX_ENV, type SandboxOptions } from '../../src/client/testing.js';
import { assertConforms, assertConformsToAdmin } from '../support/contract.js';
import { buildFixture } from '../support/fixture.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { collect } from './clientServer.js';

const TOKEN = 'sandbox-admin-token-0123456789';

/**
 * `compdata/testing` against a real server (the administration API on, over a fresh database
 * that holds a tenant `acme` of its own): every answer the sandbox and its client receive is
 * checked against its contract on the way (`checked`).
 */
async function adminServer(t: TestContext): Promise<{ server: TestServer; options: SandboxOptions; sent: string[] }> {
  const server = await startTestServer(t, { adminToken: TOKEN }, (store) => buildFixture(store, { tenant: 'acme', records: 3 }));
  const sent: string[] = [];
  return { server, options: { baseUrl: server.url, adminToken: TOKEN, fetch: checked(sent) }, sent };
}

/** `fetch`, each answer checked against the public or the administration contract; `sent` notes `METHOD path status`. */
function checked(sent: string[]) {
  return async (request: Request): Promise<Response> => {
    const response = await fetch(request);
    const { pathname } = new URL(request.url);
    const check = pathname.startsWith('/admin/') ? assertConformsToAdmin : assertConforms;
    check(request.method, pathname, response.status, response.headers, await response.clone().text());
    sent.push(`${request.method} ${pathname} ${response.status}`);
    return response;
  };
}

const tenantNames = async (server: TestServer) =>
  ((await server.call('GET', '/admin/v1/tenants?limit=1000', { bearer: TOKEN })).body.data as { name: string }[]).map((tenant) => tenant.name);

describe('compdata/testing: createSandbox', () => {
  test('the client is ready and reads its own tenant, the one the answer names', async (t) => {
    const { server, options, sent } = await adminServer(t);
    // Disposed when the test's function ends, before the server stops (the test's `after` hooks).
    await using sandbox = await createSandbox({ ...options, users: 3, records: 7, seed: 1 });
    assert.match(sandbox.tenant.name, /^sandbox-[0-9a-f]{16}$/);
    assert.equal(sandbox.key.scope, 'write');
    assert.match(sandbox.key.key, new RegExp(`^cdk_${sandbox.key.id}_`));
    const records = await collect(sandbox.client.reporting.records());
    assert.equal(records.length, 7);
    assert.ok(!records.some((record) => record.id.startsWith('acme-')), 'nothing of the other tenant');
    assert.ok((await tenantNames(server)).includes(sandbox.tenant.name));
    assert.deepEqual(sent.slice(0, 2), ['POST /admin/v1/sandboxes 201', 'GET /v1/reporting 200']);

    await using named = await createSandbox({ ...options, name: 'sb-named', records: 0, keyScope: 'read' });
    assert.deepEqual([named.tenant.name, named.key.scope], ['sb-named', 'read']);
    const refused = await named.client.users.bulkUpsert([{ email: 'a@example.com' }]).catch((error: unknown) => error);
    assert.ok(refused instanceof ProblemError && refused.status === 403, String(refused));
  });

  test('reset() brings back the created state, and the key keeps working', async (t) => {
    const { options } = await adminServer(t);
    await using sandbox = await createSandbox({ ...options, users: 4, records: 12, seed: 'reset' });
    const created = { records: await collect(sandbox.client.reporting.records()), groups: await collect(sandbox.client.attributions.groups.records()) };
    const user = created.records[0]!.user.email;

    await sandbox.client.attributions.bulkUpsert([{ user, group_dimension: 'region', group: 'Written', start_date: '2026-01', end_date: null }]);
    const written = await collect(sandbox.client.attributions.groups.records({ user }));
    assert.ok(written.some((item) => item.group === 'Written'), 'the write is seen before the reset');

    await sandbox.reset();
    assert.deepEqual(await collect(sandbox.client.attributions.groups.records()), created.groups);
    assert.deepEqual(await collect(sandbox.client.reporting.records()), created.records);
  });

  test('dispose() deletes the tenant: its key is refused after, and a second dispose does nothing more', async (t) => {
    const { server, options, sent } = await adminServer(t);
    const sandbox = await createSandbox({ ...options, records: 2 });
    await sandbox.dispose();
    assert.ok(!(await tenantNames(server)).includes(sandbox.tenant.name));
    const refused = await collect(sandbox.client.reporting.records()).catch((error: unknown) => error);
    assert.ok(refused instanceof ProblemError && refused.status === 401, String(refused));
    await sandbox.dispose();
    assert.equal(sent.filter((line) => line.startsWith('DELETE ')).length, 1, 'one DELETE for two calls');
    await assert.rejects(sandbox.reset(), /was disposed/);
    assert.deepEqual(await tenantNames(server), ['acme'], 'the other tenant stays');

    // A tenant deleted by other means: dispose has nothing left to do (the 404 is its goal).
    const other = await createSandbox(options);
    assert.equal((await server.call('DELETE', `/admin/v1/tenants/${other.tenant.name}`, { bearer: TOKEN })).status, 204);
    await other.dispose();
    assert.equal(sent.at(-1), `DELETE /admin/v1/tenants/${other.tenant.name} 404`);
  });

  test('a dispose that fails (the network breaks, retries off) leaves the tenant, and a later dispose deletes it', async (t) => {
    const { server, options } = await adminServer(t);
    let breakNext = false;
    const send = options.fetch!;
    const sandbox = await createSandbox({
      ...options,
      retry: false,
      fetch: async (request) => {
        if (breakNext && request.method === 'DELETE') {
          breakNext = false;
          throw new TypeError('fetch failed');
        }
        return send(request);
      },
    });
    breakNext = true;
    await assert.rejects(sandbox.dispose(), /fetch failed/);
    assert.ok((await tenantNames(server)).includes(sandbox.tenant.name), 'still there');
    await sandbox.dispose();
    assert.ok(!(await tenantNames(server)).includes(sandbox.tenant.name), 'deleted by the second call');
  });

  test('await using disposes of the sandbox when its block ends, even when the block throws', async (t) => {
    const { server, options } = await adminServer(t);
    let name = '';
    let key = '';
    await assert.rejects(async () => {
      await using sandbox = await createSandbox({ ...options, records: 1 });
      name = sandbox.tenant.name;
      key = sandbox.key.key;
      assert.ok((await tenantNames(server)).includes(name));
      throw new Error('a failing test');
    }, /a failing test/);
    assert.ok(name && !(await tenantNames(server)).includes(name));
    assert.equal((await server.call('GET', '/v1/reporting', { key })).status, 401);
  });

  test('a wrong admin token is a 401 ProblemError and makes nothing; a missing one a TypeError before any request', async (t) => {
    const { server, options, sent } = await adminServer(t);
    const refused = await createSandbox({ ...options, adminToken: `${TOKEN}x` }).catch((error: unknown) => error);
    assert.ok(refused instanceof ProblemError, String(refused));
    assert.equal(refused.status, 401);
    assert.equal(refused.type, 'urn:compdata:problem:unauthorized');
    assert.ok(refused.requestId);
    assert.deepEqual(await tenantNames(server), ['acme']);

    const unknownTemplate = await createSandbox({ ...options, template: 'nobody' }).catch((error: unknown) => error);
    assert.ok(unknownTemplate instanceof ProblemError && unknownTemplate.status === 404, String(unknownTemplate));

    const count = sent.length;
    await withEnvironment({ [SANDBOX_ENV.adminToken]: undefined }, async () => {
      await assert.rejects(createSandbox({ ...options, adminToken: undefined }), (error: Error) => error instanceof TypeError && /COMPDATA_ADMIN_TOKEN/.test(error.message));
      await assert.rejects(createSandbox({ ...options, adminToken: '' }), TypeError);
    });
    await assert.rejects(createSandbox({ ...options, baseUrl: '127.0.0.1:8080' }), TypeError);
    assert.equal(sent.length, count, 'no request sent');
  });

  test('without options, the server and the token come from COMPDATA_URL and COMPDATA_ADMIN_TOKEN', async (t) => {
    const { server } = await adminServer(t);
    await withEnvironment({ [SANDBOX_ENV.url]: server.url, [SANDBOX_ENV.adminToken]: TOKEN }, async () => {
      await using sandbox = await createSandbox();
      assert.equal((await collect(sandbox.client.reporting.records())).length, 100, 'the default recipe: 100 records');
      assert.equal((await tenantNames(server)).length, 2);
    });
    assert.deepEqual(await tenantNames(server), ['acme']);
  });
});

/** Runs `work` with environment variables set (or removed, for `undefined`), restored afterwards. */
async function withEnvironment(values: Record<string, string | undefined>, work: () => Promise<void>): Promise<void> {
  const before = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  const apply = (entries: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(entries)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  apply(values);
  try {
    await work();
  } finally {
    apply(before);
  }
}
