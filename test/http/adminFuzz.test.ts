import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { test } from 'node:test';
import fc from 'fast-check';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { contractOperations, fuzzRequest, type FuzzDictionary, type FuzzRequest } from '../support/fuzz/fuzzRequests.js';
import { exchange, startTestServer, type Exchange, type TestServer } from '../support/harness.js';

/**
 * Requests derived from the administration contract (openapi/admin.yaml, see test/support/fuzz)
 * against a real server: no answer is a 5xx, every answer is one the contract declares (checked
 * by the harness on every exchange), and every write it accepts reads back: a sandbox made is
 * listed with its key and the key reads its tenant; a key made reads its tenant and is listed; a
 * tenant deleted is gone and its keys refused; a key revoked is refused and listed as revoked;
 * a sandbox reset still answers its keys. Sizes are kept small (`integerCaps`) so that a run
 * makes hundreds of sandboxes in seconds. The generated requests go one after another over a
 * kept-alive connection, as clients send them (a new one where the server closed the last).
 * Replay a run with `FUZZ_SEED=<seed> FUZZ_RUNS=<runs> [FUZZ_PATH=<path>]` (printed on failure).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 3_000);
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const TOKEN = 'admin-fuzz-token-0123456789abcdef';

interface KnownKey {
  key: string;
  tenant: string;
  active: boolean;
}

test(`${RUNS} requests derived from the administration contract break no rule of it, and its writes read back (seed ${SEED})`, { timeout: 600_000 }, async (t) => {
  let acme!: Fixture;
  // No sweep during the run: a sandbox made with a time to live of a second must still be there when read back.
  const server = await startTestServer(t, { adminToken: TOKEN, sandboxes: { sweepEveryMs: 2 ** 31 - 1 } }, async (store) => {
    acme = await buildFixture(store, { tenant: 'acme', users: 4, records: 12 });
    await buildFixture(store, { tenant: 'globex', users: 2, records: 3 });
  });
  const known = new Map<string, KnownKey>();
  for (const tenant of ['acme', 'globex', 'acme', 'globex']) {
    const made = await server.call('POST', `/admin/v1/tenants/${tenant}/keys`, { bearer: TOKEN, json: { scope: 'read' } });
    known.set(made.body.id, { key: made.body.key, tenant, active: true });
  }
  const names = ['sb-a', 'sb-b', 'sb-c', 'acme', 'globex', 'nothing'];
  const dictionary: FuzzDictionary = {
    credentialHeader: 'Authorization',
    validKey: `Bearer ${TOKEN}`,
    badKeys: [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Bearer ${acme.key}`, acme.key, `Basic ${TOKEN}`, 'Bearer'],
    values: { name: names, template: ['acme', 'globex', 'sb-a', 'nothing'], after: ['acme', 'sb-a', 'm'], id: [...known.keys(), 'ffffffffffff'], seed: ['compdata'] },
    integerCaps: { users: 5n, records: 30n },
  };
  t.diagnostic(`replay: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} node --import tsx --test test/http/adminFuzz.test.ts`);

  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.after(() => agent.destroy());
  const tally = new Map<string, number>();
  const started = performance.now();
  const property = fc.asyncProperty(fuzzRequest(contractOperations('admin.yaml'), dictionary), async (request) => {
    const response = await exchange(server.url, request.method, request.path, { headers: request.headers, raw: request.body, chunked: request.chunked, agent });
    assert.ok(response.status < 500, `${response.status}: ${response.text.slice(0, 300)}`);
    const write = acceptedWrite(request, response);
    if (write) {
      tally.set(write, (tally.get(write) ?? 0) + 1);
      await readBack(server, write, request, response, known);
    }
  });
  try {
    await fc.assert(property, { seed: SEED, numRuns: RUNS, includeErrorInReport: true, ...(process.env.FUZZ_PATH && { path: process.env.FUZZ_PATH }) });
  } catch (error) {
    throw new Error(`replay with FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} (and FUZZ_PATH below)\n${(error as Error).message}`, { cause: error });
  }
  t.diagnostic(`${RUNS} requests in ${((performance.now() - started) / 1000).toFixed(1)} s; writes accepted and read back: ${JSON.stringify(Object.fromEntries(tally))}`);
  assert.ok((tally.get('createSandbox') ?? 0) > 0, 'some sandboxes were made (the run reached past the checks)');
  assert.equal((await server.call('GET', '/admin/v1/tenants?limit=1', { bearer: TOKEN })).status, 200, 'the server still answers');
});

type Write = 'createSandbox' | 'createTenantKey' | 'deleteTenant' | 'revokeKey' | 'resetTenant' | 'setSandboxTtl';

/** The write a request made, when the server accepted it (by its operation, its method and a success status). */
function acceptedWrite(request: FuzzRequest, response: Exchange): Write | undefined {
  const operation = request.operation;
  if (!operation || request.method !== operation.method || response.status >= 300) return undefined;
  const writes: Record<string, Write> = {
    'POST /admin/v1/sandboxes': 'createSandbox',
    'POST /admin/v1/tenants/{name}/keys': 'createTenantKey',
    'DELETE /admin/v1/tenants/{name}': 'deleteTenant',
    'DELETE /admin/v1/keys/{id}': 'revokeKey',
    'POST /admin/v1/tenants/{name}/reset': 'resetTenant',
    'POST /admin/v1/tenants/{name}/ttl': 'setSandboxTtl',
  };
  return writes[`${operation.method} ${operation.template}`];
}

async function readBack(server: TestServer, write: Write, request: FuzzRequest, response: Exchange, known: Map<string, KnownKey>): Promise<void> {
  const segment = (index: number) => decodeURIComponent(new URL(request.path, server.url).pathname.split('/')[index]!);
  switch (write) {
    case 'createSandbox': {
      const { tenant, key } = response.body as { tenant: { name: string }; key: { id: string; key: string } };
      known.set(key.id, { key: key.key, tenant: tenant.name, active: true });
      assert.ok((await tenantNames(server)).includes(tenant.name), `the sandbox ${tenant.name} is listed`);
      await assertKeyListed(server, tenant.name, key.id, 'active');
      const sent = parsedObject(request.body);
      const total = await server.call('GET', '/v1/reporting?limit=0', { key: key.key });
      assert.equal(total.status, 200, 'the sandbox key reads its tenant');
      if (sent && !('template' in sent)) assert.equal(total.body.count, Number(sent.records ?? 100), 'the sandbox holds the records asked for');
      return;
    }
    case 'createTenantKey': {
      const { id, key } = response.body as { id: string; key: string };
      const tenant = segment(4);
      known.set(id, { key, tenant, active: true });
      await assertKeyListed(server, tenant, id, 'active');
      assert.equal((await server.call('GET', '/v1/reporting?limit=0', { key })).status, 200, 'the new key reads its tenant');
      return;
    }
    case 'deleteTenant': {
      const tenant = segment(4);
      assert.ok(!(await tenantNames(server)).includes(tenant), `the deleted tenant ${tenant} is not listed`);
      assert.equal((await server.call('GET', `/admin/v1/tenants/${encodeURIComponent(tenant)}/keys`, { bearer: TOKEN })).status, 404);
      for (const entry of known.values()) {
        if (entry.tenant !== tenant || !entry.active) continue;
        entry.active = false;
        assert.equal((await server.call('GET', '/v1/reporting?limit=0', { key: entry.key })).status, 401, 'a deleted tenant’s key is refused');
      }
      return;
    }
    case 'revokeKey': {
      const id = segment(4);
      const entry = known.get(id);
      if (!entry) return;
      entry.active = false;
      assert.equal((await server.call('GET', '/v1/reporting?limit=0', { key: entry.key })).status, 401, 'a revoked key is refused');
      await assertKeyListed(server, entry.tenant, id, 'revoked');
      return;
    }
    case 'resetTenant': {
      const tenant = segment(4);
      for (const entry of known.values()) {
        if (entry.tenant === tenant && entry.active) assert.equal((await server.call('GET', '/v1/reporting?limit=0', { key: entry.key })).status, 200, 'keys survive a reset');
      }
      return;
    }
    case 'setSandboxTtl': {
      const { name, expires_at: expiresAt } = response.body as { name: string; expires_at: string | null };
      const tenant = (await listedTenants(server)).find((item) => item.name === name);
      assert.equal(tenant?.expires_at, expiresAt, `the new expiry of ${name} is listed`);
    }
  }
}

/** Every tenant as listed, page after page. */
async function listedTenants(server: TestServer): Promise<{ name: string; expires_at: string | null }[]> {
  const tenants: { name: string; expires_at: string | null }[] = [];
  let path: string | undefined = '/admin/v1/tenants?limit=1000';
  while (path) {
    const page = await server.call('GET', path, { bearer: TOKEN });
    assert.equal(page.status, 200);
    tenants.push(...(page.body.data as { name: string; expires_at: string | null }[]));
    path = page.body.next ? new URL(page.body.next as string).pathname + new URL(page.body.next as string).search : undefined;
  }
  return tenants;
}

const tenantNames = async (server: TestServer) => (await listedTenants(server)).map((tenant) => tenant.name);

async function assertKeyListed(server: TestServer, tenant: string, id: string, state: 'active' | 'revoked'): Promise<void> {
  const keys = await server.call('GET', `/admin/v1/tenants/${encodeURIComponent(tenant)}/keys`, { bearer: TOKEN });
  assert.equal(keys.status, 200);
  const listed = (keys.body.data as { id: string; state: string }[]).find((key) => key.id === id);
  assert.equal(listed?.state, state, `the key ${id} is listed ${state} under ${tenant}`);
}

/** The request's body as a JSON object, when it is one. */
function parsedObject(body: string | undefined): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body ?? '');
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
