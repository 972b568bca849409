import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { exportOf } from '../support/datasets.js';
import { buildFixture, fixtureUser } from '../support/fixture.js';
import { shared, startTestServer, type TestServer } from '../support/harness.js';

const TOKEN = 'admin-token-0123456789abcdef';

const create = (server: TestServer, json: unknown, idempotencyKey?: string) =>
  server.call('POST', '/admin/v1/sandboxes', { bearer: TOKEN, json, ...(idempotencyKey !== undefined && { headers: { 'Idempotency-Key': idempotencyKey } }) });

const tenantNames = async (server: TestServer): Promise<string[]> => (await server.store.listTenants({ limit: 1000 })).map(({ name }) => name);

/** Every tenant's export, by name. */
async function exports(server: TestServer): Promise<Map<string, string | undefined>> {
  const all = new Map<string, string | undefined>();
  for (const name of await tenantNames(server)) all.set(name, await exportOf(server.store, name));
  return all;
}

/** The kept answers of sandbox creates, by tenant. */
const keptAnswers = async (server: TestServer, tenantName: string) =>
  Number(await server.sql.value('SELECT count(*) FROM sandbox_requests WHERE tenant_id = (SELECT id FROM tenants WHERE name = ?)', tenantName));

describe('POST /admin/v1/sandboxes with Idempotency-Key', () => {
  /**
   * One server for these tests: each uses Idempotency-Keys of its own, and tells what it made
   * by the tenants that were not there before it.
   */
  const sharedServer = shared((scope) =>
    startTestServer(scope, { adminToken: TOKEN }, async (store) => {
      await buildFixture(store, { tenant: 'golden', users: 3, records: 6, deals: 2 });
    }),
  );

  test('a retry with the same body answers the first answer (same tenant, same key), generated or copied; nothing is made twice', async () => {
    const server = await sharedServer();
    const sandboxes: string[] = [];
    for (const [label, body] of [['generated', { users: 4, records: 10 }], ['copied', { template: 'golden', key_scope: 'read' }]] as const) {
      const first = await create(server, body, `retry-${label}`);
      assert.equal(first.status, 201, first.text);
      assert.equal(first.headers.get('Idempotent-Replayed'), null);
      const made = await exportOf(server.store, first.body.tenant.name);
      const names = await tenantNames(server);
      const again = await create(server, body, `retry-${label}`);
      assert.equal(again.status, 201, again.text);
      assert.equal(again.headers.get('Idempotent-Replayed'), 'true');
      assert.deepEqual(again.body, first.body, label);
      assert.deepEqual(await tenantNames(server), names, `${label}: no tenant made by the retry`);
      const keys = await server.call('GET', `/admin/v1/tenants/${first.body.tenant.name}/keys`, { bearer: TOKEN });
      assert.deepEqual(keys.body.data.map((key: { id: string }) => key.id), [first.body.key.id], `${label}: one key`);
      assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key: again.body.key.key })).status, 200, 'the replayed key works');
      assert.equal(await exportOf(server.store, first.body.tenant.name), made);
      sandboxes.push(first.body.tenant.name);
    }
    // Neither the key's secret nor the Idempotency-Key is in the database in the clear.
    for (const name of sandboxes) assert.equal(await keptAnswers(server, name), 1, `${name}: one answer kept`);
    const kept = (await server.sql.rows('SELECT lookup, answer FROM sandbox_requests')) as [string, Uint8Array][];
    for (const [lookup, answer] of kept) {
      const text = Buffer.from(answer).toString('latin1');
      assert.ok(!text.includes('cdk_') && !lookup.includes('retry-') && !text.includes('sandbox-'), 'sealed');
    }
  });

  test('the same key with another body is a 422 at the header, nothing made; a refused create is not remembered', async () => {
    const server = await sharedServer();
    const first = await create(server, { records: 5 }, 'k-1');
    assert.equal(first.status, 201);
    const names = await tenantNames(server);
    for (const other of [{ records: 6 }, { records: 5, key_scope: 'read' }, { records: 5, name: 'other' }]) {
      const reused = await create(server, other, 'k-1');
      assert.equal(reused.status, 422, reused.text);
      assert.equal(reused.body.type, 'urn:compdata:problem:unprocessable');
      assert.deepEqual(reused.body.errors.map((error: { pointer: string }) => error.pointer), ['/header/Idempotency-Key']);
    }
    assert.deepEqual(await tenantNames(server), names);
    // The same fields in another order are the same body.
    const reordered = await create(server, { records: 5 }, 'k-1');
    assert.equal(reordered.status, 201);
    assert.deepEqual(reordered.body, first.body);

    const taken = await create(server, { name: first.body.tenant.name }, 'k-2');
    assert.equal(taken.status, 409);
    const afterRefusal = await create(server, { name: 'fresh', records: 1 }, 'k-2');
    assert.equal(afterRefusal.status, 201, 'a refused create left its key free');
    assert.equal(afterRefusal.headers.get('Idempotent-Replayed'), null);
  });

  test('a deleted sandbox is forgotten with its answer, and an answer older than a day is forgotten: the key makes a new sandbox', async () => {
    const server = await sharedServer();
    const first = await create(server, { records: 2 }, 'gone-1');
    const firstId = await server.sql.value('SELECT id FROM tenants WHERE name = ?', first.body.tenant.name);
    assert.equal(await keptAnswers(server, first.body.tenant.name), 1);
    assert.equal((await server.call('DELETE', `/admin/v1/tenants/${first.body.tenant.name}`, { bearer: TOKEN })).status, 204);
    assert.equal(Number(await server.sql.value('SELECT count(*) FROM sandbox_requests WHERE tenant_id = ?', firstId)), 0);
    const second = await create(server, { records: 2 }, 'gone-1');
    assert.equal(second.status, 201);
    assert.equal(second.headers.get('Idempotent-Replayed'), null);
    assert.notEqual(second.body.tenant.name, first.body.tenant.name);

    await server.sql.rows(`UPDATE sandbox_requests SET created_at = created_at - ${24 * 60 * 60 * 1000 + 1} WHERE tenant_id = (SELECT id FROM tenants WHERE name = ?)`, second.body.tenant.name);
    const third = await create(server, { records: 2 }, 'gone-1');
    assert.equal(third.status, 201);
    assert.equal(third.headers.get('Idempotent-Replayed'), null);
    assert.notEqual(third.body.tenant.name, second.body.tenant.name);
  });

  test('two creates with the same key at once: one sandbox, both answered with it', async () => {
    const server = await sharedServer();
    const before = await tenantNames(server);
    const body = { users: 30, records: 3000 };
    const answers = await Promise.all([create(server, body, 'race-1'), create(server, body, 'race-1')]);
    for (const answer of answers) assert.equal(answer.status, 201, answer.text);
    assert.deepEqual(answers[0].body, answers[1].body);
    assert.deepEqual((await tenantNames(server)).sort(), [...before, answers[0].body.tenant.name].sort(), 'one tenant made');
  });
});

describe('POST /admin/v1/sandboxes: created_at and limits', () => {
  test('created_at is the time stored with the tenant, as GET /admin/v1/tenants shows it', async (t) => {
    const server = await startTestServer(t, { adminToken: TOKEN }, async (store) => {
      await buildFixture(store, { tenant: 'golden', records: 3 });
    });
    for (const body of [{ name: 'gen', records: 2000, users: 50 }, { name: 'copy', template: 'golden' }]) {
      const made = await create(server, body);
      assert.equal(made.status, 201);
      const listed = await server.call('GET', '/admin/v1/tenants', { bearer: TOKEN });
      const stored = listed.body.data.find((tenant: { name: string }) => tenant.name === body.name);
      assert.equal(made.body.tenant.created_at, stored.created_at);
    }
  });

  test('past --max-sandboxes a create is a 409 and nothing is made; a sandbox deleted makes room', async (t) => {
    const server = await startTestServer(t, { adminToken: TOKEN, sandboxLimits: { maxSandboxes: 2, maxRecords: 1000 } }, async (store) => {
      await buildFixture(store, { tenant: 'golden', records: 3 });
    });
    assert.equal((await create(server, { name: 'one', records: 1 })).status, 201);
    assert.equal((await create(server, { name: 'two', template: 'golden' })).status, 201);
    const before = await exports(server);
    const keysBefore = Number(await server.sql.value('SELECT count(*) FROM api_keys'));
    for (const body of [{ name: 'three', records: 1 }, { name: 'three', template: 'golden' }]) {
      const refused = await create(server, body, 'cap-1');
      assert.equal(refused.status, 409, refused.text);
      assert.equal(refused.body.type, 'urn:compdata:problem:too-many-sandboxes');
      assert.deepEqual(await exports(server), before, 'nothing made');
      assert.equal(Number(await server.sql.value('SELECT count(*) FROM api_keys')), keysBefore, 'no key made');
    }
    assert.equal((await server.call('DELETE', '/admin/v1/tenants/one', { bearer: TOKEN })).status, 204);
    const made = await create(server, { name: 'three', records: 1 }, 'cap-1');
    assert.equal(made.status, 201, 'the refused create was not remembered');
  });

  test('creates at once past --max-sandboxes: exactly as many as the cap are made, the others are 409s', async (t) => {
    const server = await startTestServer(t, { adminToken: TOKEN, sandboxLimits: { maxSandboxes: 3, maxRecords: 1000 } });
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => create(server, { name: `at-once-${i}`, users: 20, records: 500 })));
    const statuses = answers.map((answer) => answer.status).sort();
    assert.deepEqual(statuses, [201, 201, 201, 409, 409, 409]);
    const made = answers.filter((answer) => answer.status === 201).map((answer) => answer.body.tenant.name as string);
    assert.deepEqual(await tenantNames(server), made.sort());
  });

  test('a template of more records than --max-sandbox-records is a 422 before anything is written', async (t) => {
    const server = await startTestServer(t, { adminToken: TOKEN, sandboxLimits: { maxSandboxes: 10, maxRecords: 10 } }, async (store) => {
      await buildFixture(store, { tenant: 'small', records: 6, deals: 4 });
      await buildFixture(store, { tenant: 'large', records: 8, deals: 3 });
    });
    const before = await exports(server);
    const refused = await create(server, { name: 'copy', template: 'large' });
    assert.equal(refused.status, 422, refused.text);
    assert.deepEqual(refused.body.errors.map((error: { pointer: string }) => error.pointer), ['/body/template']);
    assert.deepEqual(await exports(server), before);
    const made = await create(server, { name: 'copy', template: 'small' });
    assert.equal(made.status, 201, 'exactly at the limit');
  });
});

describe('sandboxes are isolated', () => {
  test('a sandbox key writes only its tenant; a reset leaves every other tenant byte-identical', async (t) => {
    const server = await startTestServer(t, { adminToken: TOKEN }, async (store) => {
      await buildFixture(store, { tenant: 'acme', records: 5, deals: 2 });
    });
    const one = await create(server, { name: 'one', users: 5, records: 20 });
    const two = await create(server, { name: 'two', template: 'acme' });
    const others = async () => new Map([...(await exports(server))].filter(([name]) => name !== 'one'));
    const before = await others();
    const write = await server.call('PUT', '/v1/users/bulk', { key: one.body.key.key, json: { data: [fixtureUser('one', 77)] } });
    assert.equal(write.status, 200, write.text);
    assert.deepEqual(await others(), before, 'the write reached only its tenant');
    const oneWritten = await exportOf(server.store, 'one');
    assert.equal((await server.call('POST', '/admin/v1/tenants/two/reset', { bearer: TOKEN })).status, 204);
    assert.equal(await exportOf(server.store, 'one'), oneWritten);
    assert.deepEqual(await others(), before);
    assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key: two.body.key.key })).status, 200);
  });
});
