import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseMonth } from '../../src/domain/months.js';
import { statementId } from '../../src/domain/statements.js';
import { structureId } from '../../src/domain/v2Json.js';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { startTestServer, type TestServer } from '../support/harness.js';

const TOKEN = 'admin-token-0123456789abcdef';
const statementsPath = `/v2/reporting/${structureId({ kind: 'statements' })}/statements?limit=2000`;
const statusPath = '/admin/v1/tenants/acme/statements/status';
type V2 = Record<string, any>;

/**
 * The fixture's 3 users have 4 statements each (user0 in 2026-01, -04, -07, -10; user1 in -02,
 * -05, -08, -11; user2 in -03, -06, -09, -12), every one `validated` to begin with.
 */
async function server(t: Parameters<typeof startTestServer>[0]): Promise<{ server: TestServer; acme: Fixture }> {
  let acme!: Fixture;
  const started = await startTestServer(t, { adminToken: TOKEN }, async (store) => {
    acme = await buildFixture(store, { tenant: 'acme', deals: 0 });
    await store.loadTenant('acme', {}, async (writer) => {
      await writer.setStatementStatuses(Array.from({ length: 12 }, (_, i) => ({ user_id: `u${i % 3}`, month: 2026 * 12 + i, status: 'validated' as const })));
      await writer.finish();
    });
  });
  return { server: started, acme };
}

/** The v2 lines of a user (by id) in a month, as `[status, last_modified_at]` of each. */
async function linesOf(server: TestServer, key: string, user: string, month: string): Promise<[string, string][]> {
  const page = await server.call('GET', statementsPath, { key });
  return (page.body.data as V2[])
    .filter((record) => record['standard.user'].id === user && String(record['standard.date']).startsWith(month))
    .map((record) => [record['standard.status'], record['standard.last_modified_at']]);
}

describe('POST /admin/v1/tenants/{name}/statements/status', () => {
  test("a statement sent to payroll: its lines show it in v2, their last_modified_at moves, v1's sync returns nothing", async (t) => {
    const { server: api, acme } = await server(t);
    const before = await linesOf(api, acme.key, 'u0', '2026-04');
    assert.deepEqual(
      before.map(([status]) => status),
      ['validated', 'validated'],
    );
    const sync = await api.call('GET', '/v1/reporting?changed_since=0&limit=2000', { key: acme.key });
    const firstPage = async () => (await api.call('GET', '/v1/reporting?limit=1', { key: acme.key })).headers.get('etag');
    const etag = await firstPage();
    const latest = ((await api.call('GET', statementsPath, { key: acme.key })).body.data as V2[]).map((record) => String(record['standard.last_modified_at'])).sort().at(-1)!;
    const changed = await api.call('POST', statusPath, { bearer: TOKEN, json: { status: 'sent_to_payroll', statements: [{ user: 'User0@acme.example', month: '2026-04' }] } });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(changed.body, {
      count: 1,
      calls: 0,
      data: [{ id: statementId('u0', parseMonth('2026-04')!), user: 'user0@acme.example', month: '2026-04', from: 'validated', to: 'sent_to_payroll' }],
    });
    const after = await linesOf(api, acme.key, 'u0', '2026-04');
    assert.deepEqual(
      after.map(([status]) => status),
      ['sent_to_payroll', 'sent_to_payroll'],
    );
    for (const [i, [, time]] of after.entries()) assert.ok(time > before[i]![1], `line ${i}: ${time} after ${before[i]![1]}`);
    const since = await api.call('GET', `/v1/reporting?changed_since=${encodeURIComponent(sync.body.sync_token)}&limit=2000`, { key: acme.key });
    assert.equal(since.status, 200);
    assert.equal(since.body.count, 0, 'v1 records show no status: none changed');
    assert.ok(etag);
    assert.notEqual(await firstPage(), etag, 'the data version changed: every ETag of the tenant does');
    const walked = await api.call('GET', `${statementsPath}&last_modified_after=${encodeURIComponent(latest)}`, { key: acme.key });
    assert.deepEqual(
      (walked.body.data as V2[]).map((record) => record['standard.status']),
      ['sent_to_payroll', 'sent_to_payroll'],
    );
  });

  test('a refused change is a 409 pointing at the statements that may not make it; nothing changed', async (t) => {
    const { server: api, acme } = await server(t);
    const v2Before = (await api.call('GET', statementsPath, { key: acme.key })).body;
    const refused = await api.call('POST', statusPath, {
      bearer: TOKEN,
      json: { status: 'paid', statements: [{ user: 'user1@acme.example', month: '2026-02' }, { user: 'user2@acme.example', month: '2026-03' }] },
    });
    assert.equal(refused.status, 409, refused.text);
    assert.deepEqual(refused.body.errors, [
      { pointer: '/statements/0', message: 'the statement of user1@acme.example in 2026-02 is validated: only a sent_to_payroll statement can become paid' },
      { pointer: '/statements/1', message: 'the statement of user2@acme.example in 2026-03 is validated: only a sent_to_payroll statement can become paid' },
    ]);
    const missing = await api.call('POST', statusPath, { bearer: TOKEN, json: { status: 'validated', statements: [{ user: 'user1@acme.example', month: '2026-01' }] } });
    assert.equal(missing.status, 404, missing.text);
    assert.equal((await api.call('POST', statusPath, { bearer: TOKEN, json: { status: 'paid', user: 'nobody@acme.example' } })).status, 404);
    assert.equal((await api.call('POST', '/admin/v1/tenants/nobody/statements/status', { bearer: TOKEN, json: { status: 'paid', user: 'a@b.c' } })).status, 404);
    assert.deepEqual((await api.call('GET', statementsPath, { key: acme.key })).body, v2Before);
  });

  test('a user or a period: every statement the lifecycle lets change; the request checked against the contract', async (t) => {
    const { server: api } = await server(t);
    const byUser = await api.call('POST', statusPath, { bearer: TOKEN, json: { status: 'sent_to_payroll', user: 'user2@acme.example' } });
    assert.deepEqual(
      byUser.body.data.map((change: V2) => change.month),
      ['2026-03', '2026-06', '2026-09', '2026-12'],
    );
    const byPeriod = await api.call('POST', statusPath, { bearer: TOKEN, json: { status: 'paid', period: { start_date: '2026-01', end_date: '2026-06' } } });
    assert.deepEqual(
      byPeriod.body.data.map((change: V2) => `${change.user} ${change.month} ${change.from}`),
      ['user2@acme.example 2026-03 sent_to_payroll', 'user2@acme.example 2026-06 sent_to_payroll'],
    );
    const cases: [string, unknown][] = [
      ['no selection', { status: 'paid' }],
      ['two selections', { status: 'paid', user: 'user0@acme.example', period: { start_date: '2026-01', end_date: '2026-02' } }],
      ['draft is no target', { status: 'draft', user: 'user0@acme.example' }],
      ['a bad month', { status: 'paid', statements: [{ user: 'user0@acme.example', month: '2026-13' }] }],
      ['a period backwards', { status: 'paid', period: { start_date: '2026-05', end_date: '2026-02' } }],
      ['an empty list', { status: 'paid', statements: [] }],
    ];
    for (const [name, json] of cases) assert.equal((await api.call('POST', statusPath, { bearer: TOKEN, json })).status, 400, name);
  });

  test('the same statement sent by requests at once: one changes it, the others are 409s', async (t) => {
    const { server: api } = await server(t);
    const json = { status: 'sent_to_payroll', statements: [{ user: 'user1@acme.example', month: '2026-05' }] };
    const answers = await Promise.all(Array.from({ length: 4 }, () => api.call('POST', statusPath, { bearer: TOKEN, json })));
    assert.deepEqual(
      answers.map((answer) => answer.status).sort(),
      [200, 409, 409, 409],
    );
  });
});
