import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { FIRST_MONTH, monthOfDate, parseMonth } from '../../src/domain/months.js';
import type { Period } from '../../src/domain/periods.js';
import { buildFixture, fixtureLine, fixtureUser, type Fixture } from '../support/fixture.js';
import { shared, startTestServer, type TestServer } from '../support/harness.js';
import { SlotModel, groupSlot, managerSlot, monthText, readAll, stateOfRows } from '../support/attributions.js';
import { boundaryMonths, wirePeriodArb } from '../support/monthModel.js';

/**
 * PUT /v1/users/groups/bulk at the edges of the months the wire form can write, `0000-01` and
 * `9999-12` (issue 15, part 1): what is left of a stored attribution must be a period of those
 * months, or nothing. Every response is checked against the contract by the harness, so a
 * month like `0000-00` or `10000-01` in a read-back fails there. Last, a property over the
 * whole range: random requests, then the read-backs and the records' dimension fields must
 * say what a month-by-month model says.
 */
async function tenantOnSharedServer(sharedServer: () => Promise<TestServer>) {
  const server = await sharedServer();
  tenants += 1;
  const fixture: Fixture = await buildFixture(server.store, { tenant: `acme${tenants}`, users: 4, emailDomain: 'acme.example' });
  const put = async (data: unknown[]) => {
    const response = await server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data } });
    assert.equal(response.status, 200, response.text);
    return response.body;
  };
  return { server, fixture, put };
}
let tenants = 0;

const [U, M, N] = ['user1@acme.example', 'user2@acme.example', 'user3@acme.example'];
const manager = (who: string, start_date: string | null, end_date: string | null) => ({ user: U, manager: who, start_date, end_date });
const region = (group: string, start_date: string, end_date: string | null) => ({ user: U, group_dimension: 'region', group, start_date, end_date });
type Item = ReturnType<typeof manager> | ReturnType<typeof region>;

/** Each case writes `stored`, then `put`, and reads back U's manager or region attributions. */
const cases: [string, { stored: Item; put: Item; want: Item[] }][] = [
  ['since always, cut from 0000-01 on: nothing is left', { stored: manager(M, null, null), put: manager(N, '0000-01', null), want: [manager(N, '0000-01', null)] }],
  ['since always, cut at 9999-11..9999-12', { stored: manager(M, null, null), put: manager(N, '9999-11', '9999-12'), want: [manager(M, null, '9999-10'), manager(N, '9999-11', '9999-12')] }],
  ['since always with no end, cut by 0000-01..9999-12: nothing is left', { stored: manager(M, null, null), put: manager(N, '0000-01', '9999-12'), want: [manager(N, '0000-01', '9999-12')] }],
  ['from 0000-01, cut by since always up to 0000-01', { stored: manager(M, '0000-01', null), put: manager(N, null, '0000-01'), want: [manager(N, null, '0000-01'), manager(M, '0000-02', null)] }],
  ['a manager with no end, cut at 9999-12', { stored: manager(M, '5000-01', null), put: manager(N, '9999-12', '9999-12'), want: [manager(M, '5000-01', '9999-11'), manager(N, '9999-12', '9999-12')] }],
  ['a group from 0000-01 with no end, cut at 9999-12', { stored: region('EMEA', '0000-01', null), put: region('NA', '9999-12', '9999-12'), want: [region('EMEA', '0000-01', '9999-11'), region('NA', '9999-12', '9999-12')] }],
  ['a group at 9999-12 with no end, cut there: nothing is left', { stored: region('EMEA', '9999-12', null), put: region('NA', '9999-12', '9999-12'), want: [region('NA', '9999-12', '9999-12')] }],
  ['a group with no end, covered by 0000-01..9999-12', { stored: region('EMEA', '2026-01', null), put: region('NA', '0000-01', '9999-12'), want: [region('NA', '0000-01', '9999-12')] }],
  ['a group from 0000-01, split at 0000-01', { stored: region('EMEA', '0000-01', null), put: region('NA', '0000-01', '0000-01'), want: [region('NA', '0000-01', '0000-01'), region('EMEA', '0000-02', null)] }],
];

// The describe's tests share one server, each with the fixture in a tenant of its own (the same
// users and e-mails): a test reads back only through its own tenant's key.
describe('months at the edges of the wire range', () => {
  const sharedServer = shared((scope) => startTestServer(scope));
  test('regression (issue 15): 0000-01..0000-02 over a since-always manager leaves 0000-03.., not ..0000-00', async () => {
    const { server, fixture, put } = await tenantOnSharedServer(sharedServer);
    await put([{ user: U, manager: M }]);
    await put([{ user: U, manager: M, start_date: '0000-01', end_date: '0000-02' }]);
    assert.deepEqual(await readAll(server, fixture.key, `/v1/users/managers?user=${U}`), [
      { user: U, manager: M, start_date: '0000-01', end_date: '0000-02' },
      { user: U, manager: M, start_date: '0000-03', end_date: null },
    ]);
  });

  for (const [name, { stored, put: item, want }] of cases) {
    test(name, async () => {
      const { server, fixture, put } = await tenantOnSharedServer(sharedServer);
      await put([stored]);
      assert.deepEqual(await put([item]), { count: 1, data: [item] }, 'both edges are accepted and echoed as sent');
      const path = 'manager' in item ? `/v1/users/managers?user=${U}` : `/v1/users/groups?user=${U}&group_dimension=region`;
      assert.deepEqual(await readAll(server, fixture.key, path), want);
    });
  }

  test('a cycle of since-always managers beside an edge from 0000-01 is named "in every month"', async () => {
    const { server, fixture } = await tenantOnSharedServer(sharedServer);
    const data = [{ user: U, manager: M }, { user: M, manager: U }, { user: N, manager: U, start_date: '0000-01' }];
    const response = await server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data } });
    assert.equal(response.status, 422, response.text);
    assert.match(response.body.errors[0].message, /managers would form a cycle in every month: /);
  });
});

// ---- The whole range 0000-01..9999-12: random requests against a month-by-month model ----

/** Record dates of u0 and u1: both edges of the range, their neighbours, and a month between. */
const RECORD_DATES = ['0000-01-01', '0000-02-29', '0000-03-31', '2026-06-15', '9999-11-30', '9999-12-31'];
const RECORD_MONTHS = RECORD_DATES.map((date) => monthOfDate(date)!);
const email = (i: number) => `user${i}@t.example`;

/** A fresh tenant of 4 users with records in RECORD_DATES for u0 and u1; its key. */
async function edgeTenant(server: TestServer, tenant: string): Promise<string> {
  await server.store.loadTenant(tenant, {}, async (writer) => {
    await writer.defineMetricsAndDimensions(['new_arr'], ['region', 'segment']);
    await writer.upsertUsers([0, 1, 2, 3].map((i) => fixtureUser(tenant, i, 't.example')));
    const lines = RECORD_DATES.flatMap((date, i) => [0, 1].map((user) => ({ ...fixtureLine(tenant, i * 2 + user, 2), date })));
    await writer.upsertReportingRecords(lines);
    await writer.finish();
  });
  return (await server.store.createKey(tenant)).key;
}

const text = (month: number | null) => (month === null ? null : monthText(month));
const monthOf = (wire: string | null) => (wire === null ? null : parseMonth(wire)!);
/** Group items: a start is required (an open start drawn becomes 0000-01). */
const groupItemArb = fc
  .record({
    user: fc.integer({ min: 0, max: 1 }),
    dimension: fc.constantFrom('region', 'segment'),
    group: fc.constantFrom('A', 'B', 'C'),
    period: wirePeriodArb,
  })
  .map(({ user, dimension, group, period }) => ({
    user: email(user),
    group_dimension: dimension,
    group,
    start_date: monthText(period.start ?? FIRST_MONTH),
    end_date: text(period.end),
  }));
/** Manager items: a user is managed by a user of a higher number only, so no request makes a cycle. */
const managerItemArb = fc
  .record({ user: fc.integer({ min: 0, max: 2 }), above: fc.integer({ min: 1, max: 3 }), period: wirePeriodArb })
  .map(({ user, above, period }) => ({
    user: email(user),
    manager: email(Math.min(3, user + above)),
    start_date: text(period.start),
    end_date: text(period.end),
  }));
type WireItem = { user: string; start_date: string | null; end_date: string | null } & ({ manager: string } | { group_dimension: string; group: string });
const slotOf = (item: WireItem) => ('manager' in item ? `m:${managerSlot(item)}` : `g:${groupSlot(item)}`);
/** Requests of 1 to 3 items, no two of one slot (those would be a 422 for overlapping). */
const requestsArb = fc.array(
  fc.uniqueArray(fc.oneof(groupItemArb, managerItemArb) as fc.Arbitrary<WireItem>, { minLength: 1, maxLength: 3, selector: slotOf }),
  { minLength: 1, maxLength: 5 },
);

/** What a tenant starts with in each run: a manager since always, and groups open at either edge. */
const FIRST_REQUEST: WireItem[] = [
  { user: email(0), manager: email(1), start_date: null, end_date: null },
  { user: email(0), group_dimension: 'region', group: 'A', start_date: '0000-01', end_date: null },
  { user: email(1), group_dimension: 'segment', group: 'B', start_date: '9999-12', end_date: null },
];

describe('the whole range 0000-01..9999-12 (property)', () => {
  test('random requests with edge months leave what a month-by-month model says, in read-backs and records', async (t) => {
    const server = await startTestServer(t);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(requestsArb, async (requests) => {
        const key = await edgeTenant(server, `t${(run += 1)}`);
        const all = [FIRST_REQUEST, ...requests];
        const periods = all.flat().map((item): Period => ({ start: monthOf(item.start_date), end: monthOf(item.end_date) }));
        const months = [...new Set([...boundaryMonths(periods), ...RECORD_MONTHS])].sort((a, b) => a - b);
        const [groups, managers] = [new SlotModel(months), new SlotModel(months)];
        for (const data of all) {
          const response = await server.call('PUT', '/v1/users/groups/bulk', { key, json: { data } });
          assert.equal(response.status, 200, response.text);
          for (const item of data) {
            if ('manager' in item) managers.put(managerSlot(item), item.manager, item.start_date, item.end_date);
            else groups.put(groupSlot(item), item.group, item.start_date, item.end_date);
          }
        }
        const storedGroups = await readAll(server, key, '/v1/users/groups?limit=2');
        assert.deepEqual(stateOfRows(storedGroups, groupSlot, (row) => row.group, months), groups.snapshot());
        const storedManagers = await readAll(server, key, '/v1/users/managers?limit=2');
        assert.deepEqual(stateOfRows(storedManagers, managerSlot, (row) => row.manager, months), managers.snapshot());
        const records = await readAll(server, key, '/v1/reporting?limit=5');
        assert.equal(records.length, RECORD_DATES.length * 2);
        for (const record of records) {
          const month = monthOfDate(record.date)!;
          for (const dimension of ['region', 'segment']) {
            const want = [groups.at(`${record.user.email}/${dimension}`, month)].filter(Boolean);
            assert.deepEqual(record[dimension], want, `${record.id} ${record.date} ${dimension}`);
          }
        }
      }),
      { numRuns: 15 },
    );
  });
});
