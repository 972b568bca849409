import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { SlotModel, groupSlot, managerSlot, monthText, readAll, stateOfRows } from '../support/attributions.js';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { startTestServer, type TestServer } from '../support/harness.js';

/**
 * docs/rules.md#keys: a key sees and changes only its own tenant's data, even where two tenants share e-mail
 * addresses, user ids, dimension keys and table keys. (Reads of reporting and table records by
 * a key of each tenant: auth.test.ts; the 404 of another tenant's table: getTableRecords.test.ts.)
 * Tenant `a` has users user0..user3, tenant `b` user0..user5, all `@<shared domain>`.
 */
const USERS = { a: 4, b: 6 } as const;
type TenantName = keyof typeof USERS;

async function twoTenants(server: TestServer, run: number) {
  const emailDomain = `shared${run}.example`;
  const fixtures: Record<TenantName, Fixture> = {
    a: await buildFixture(server.store, { tenant: `a${run}`, users: USERS.a, records: 24, emailDomain }),
    b: await buildFixture(server.store, { tenant: `b${run}`, users: USERS.b, records: 24, emailDomain }),
  };
  return { emailDomain, fixtures, email: (i: number) => `user${i}@${emailDomain}` };
}

/** The fixture's own attributions (u0: EMEA 2026-03..05, APAC from 2026-09), as the model starts. */
function fixtureGroups(email: (i: number) => string): SlotModel {
  const model = new SlotModel();
  model.put(`${email(0)}/region`, 'EMEA', '2026-03', '2026-05');
  model.put(`${email(0)}/region`, 'APAC', '2026-09', null);
  return model;
}

const month = fc.integer({ min: 2024 * 12, max: 2028 * 12 - 1 }).map(monthText);
const write = fc.record({
  tenant: fc.constantFrom<TenantName>('a', 'b'),
  user: fc.nat({ max: USERS.b - 1 }),
  upper: fc.boolean(),
  manager: fc.option(fc.nat({ max: USERS.b - 1 })),
  group_dimension: fc.constantFrom('region', 'segment'),
  group: fc.constantFrom('North', 'South'),
  period: fc.tuple(month, fc.option(month)).map(([start, end]) => (end !== null && end < start ? [end, start] : [start, end]) as [string, string | null]),
});

describe('tenant isolation with shared e-mails, ids and keys', () => {
  test('interleaved bulk writes by keys of two tenants each change only their own tenant', async (t) => {
    const server = await startTestServer(t);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 12 }), async (writes) => {
        run += 1;
        const { fixtures, email } = await twoTenants(server, run);
        const groups = { a: fixtureGroups(email), b: fixtureGroups(email) };
        const managers = { a: new SlotModel(), b: new SlotModel() };
        for (const { tenant, user, upper, manager, group_dimension, group, period } of writes) {
          const sent = upper ? email(user).toUpperCase() : email(user);
          // A manager of a lower index never closes a cycle.
          const managerEmail = manager !== null && manager < user ? email(manager) : undefined;
          const item = managerEmail
            ? { user: sent, manager: managerEmail, start_date: period[0], end_date: period[1] }
            : { user: sent, group_dimension, group: `${group}-${tenant}`, start_date: period[0], end_date: period[1] };
          const response = await server.call('PUT', '/v1/users/groups/bulk', { key: fixtures[tenant].key, json: { data: [item] } });
          if (user >= USERS[tenant]) {
            assert.equal(response.status, 422, 'a user of the other tenant only is unknown here');
            continue;
          }
          assert.equal(response.status, 200, response.text);
          if (managerEmail) managers[tenant].put(email(user), managerEmail, ...period);
          else groups[tenant].put(`${email(user)}/${group_dimension}`, `${group}-${tenant}`, ...period);
        }
        for (const tenant of ['a', 'b'] as const) {
          const { key } = fixtures[tenant];
          const groupRows = await readAll(server, key, '/v1/users/groups?limit=7');
          assert.deepEqual(stateOfRows(groupRows, groupSlot, (row) => row.group), groups[tenant].snapshot(), `groups of ${tenant}`);
          const managerRows = await readAll(server, key, '/v1/users/managers?limit=7');
          assert.deepEqual(stateOfRows(managerRows, managerSlot, (row) => row.manager), managers[tenant].snapshot(), `managers of ${tenant}`);
        }
      }),
      { numRuns: 25 },
    );
  });

  test('filters, reporting dimensions and read-backs of one tenant never show the other’s writes', async (t) => {
    const server = await startTestServer(t);
    const { fixtures, email } = await twoTenants(server, 0);
    const item = { user: email(1), group_dimension: 'region', group: 'A-ONLY', start_date: '2026-01', end_date: '2026-12' };
    assert.equal((await server.call('PUT', '/v1/users/groups/bulk', { key: fixtures.a.key, json: { data: [item] } })).status, 200);
    const manager = { user: email(2), manager: email(1) };
    assert.equal((await server.call('PUT', '/v1/users/groups/bulk', { key: fixtures.a.key, json: { data: [manager] } })).status, 200);
    for (const path of [`/v1/users/groups?user=${email(1)}`, `/v1/users/groups?group_dimension=region`, `/v1/users/managers?user=${email(2)}`, '/v1/users/managers']) {
      const seen = JSON.stringify(await readAll(server, fixtures.b.key, path));
      assert.ok(!seen.includes('A-ONLY') && !seen.includes(`"manager":"${email(1)}"`), `${path} with b's key: ${seen}`);
    }
    const reportingOf = async (key: string) => (await readAll(server, key, '/v1/reporting?limit=10')).filter((record) => record.user.id === 'u1');
    assert.ok((await reportingOf(fixtures.a.key)).every((record) => JSON.stringify(record.region) === '["A-ONLY"]'));
    assert.ok((await reportingOf(fixtures.b.key)).every((record) => record.region.length === 0));
  });

  test('a dimension of the other tenant only is unknown, and nothing is written anywhere', async (t) => {
    const server = await startTestServer(t);
    const { fixtures, email } = await twoTenants(server, 0);
    await server.store.loadTenant('b0', {}, (writer) => writer.defineMetricsAndDimensions([], ['channel']));
    const item = { user: email(1), group_dimension: 'channel', group: 'Web', start_date: '2026-01' };
    const refused = await server.call('PUT', '/v1/users/groups/bulk', { key: fixtures.a.key, json: { data: [item] } });
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.body.errors.map((error: { pointer: string }) => error.pointer), ['/data/0/group_dimension']);
    assert.deepEqual(await readAll(server, fixtures.b.key, '/v1/users/groups?group_dimension=channel'), []);
    assert.equal((await server.call('PUT', '/v1/users/groups/bulk', { key: fixtures.b.key, json: { data: [item] } })).status, 200);
  });

  test('an unknown table key gets the same bytes before and after another tenant creates that table', async (t) => {
    const server = await startTestServer(t);
    const { fixtures } = await twoTenants(server, 0);
    const ask = () => server.call('GET', '/v1/tables/forecasts/records?limit=1', { key: fixtures.a.key });
    const before = await ask();
    await server.store.loadTenant('b0', {}, (writer) => writer.defineDataTable('forecasts', 'Forecasts', [{ key: 'name', type: 'string' }]));
    const after = await ask();
    assert.deepEqual([before.status, after.status], [404, 404]);
    assert.equal(after.text, before.text, 'the answer does not tell that the key exists elsewhere');
    assert.equal((await server.call('GET', '/v1/tables/forecasts/records?limit=0', { key: fixtures.b.key })).status, 200);
    const shared = await server.call('GET', '/v1/tables/deals/records?limit=0', { key: fixtures.a.key });
    assert.deepEqual(shared.body, { count: fixtures.a.deals, data: [] }, 'a table key both tenants have counts only the own records');
  });
});
