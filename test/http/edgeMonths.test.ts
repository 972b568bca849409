import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { startTestServer } from '../support/harness.js';
import { readAll } from '../support/attributions.js';

/**
 * PUT /v1/users/groups/bulk at the edges of the months the wire form can write, `0000-01` and
 * `9999-12` (issue 15, part 1): what is left of a stored attribution must be a period of those
 * months, or nothing. Every response is checked against the contract by the harness, so a
 * month like `0000-00` or `10000-01` in a read-back fails there.
 */
async function serverWithFixture(t: TestContext) {
  let fixture!: Fixture;
  const server = await startTestServer(t, {}, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme', users: 4 });
  });
  const put = async (data: unknown[]) => {
    const response = await server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data } });
    assert.equal(response.status, 200, response.text);
  };
  return { server, fixture, put };
}

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

describe('months at the edges of the wire range', () => {
  test('regression (issue 15): 0000-01..0000-02 over a since-always manager leaves 0000-03.., not ..0000-00', async (t) => {
    const { server, fixture, put } = await serverWithFixture(t);
    await put([{ user: U, manager: M }]);
    await put([{ user: U, manager: M, start_date: '0000-01', end_date: '0000-02' }]);
    assert.deepEqual(await readAll(server, fixture.key, `/v1/users/managers?user=${U}`), [
      { user: U, manager: M, start_date: '0000-01', end_date: '0000-02' },
      { user: U, manager: M, start_date: '0000-03', end_date: null },
    ]);
  });

  for (const [name, { stored, put: item, want }] of cases) {
    test(name, async (t) => {
      const { server, fixture, put } = await serverWithFixture(t);
      await put([stored]);
      await put([item]);
      const path = 'manager' in item ? `/v1/users/managers?user=${U}` : `/v1/users/groups?user=${U}&group_dimension=region`;
      assert.deepEqual(await readAll(server, fixture.key, path), want);
    });
  }

  test('a cycle of since-always managers beside an edge from 0000-01 is named "in every month"', async (t) => {
    const { server, fixture } = await serverWithFixture(t);
    const data = [{ user: U, manager: M }, { user: M, manager: U }, { user: N, manager: U, start_date: '0000-01' }];
    const response = await server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data } });
    assert.equal(response.status, 422, response.text);
    assert.match(response.body.errors[0].message, /managers would form a cycle in every month: /);
  });
});
