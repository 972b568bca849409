import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readAll } from '../support/attributions.js';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { shared, startTestServer } from '../support/harness.js';

/**
 * PUT /v1/users/managers/bulk (docs/rules.md#bulk-attributions): the manager items of the groups
 * bulk on their own endpoint, with its rules and answer. One server; each test writes the
 * managers of users of its own (`user{i}@acme.example`, 12 users).
 */
const served = shared(async (scope) => {
  let fixture!: Fixture;
  const server = await startTestServer(scope, {}, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme', users: 12, records: 12 });
  });
  const put = (data: unknown[]) => server.call('PUT', '/v1/users/managers/bulk', { key: fixture.key, json: { data } });
  const managersOf = (user: string) => readAll(server, fixture.key, `/v1/users/managers?user=${user}`);
  return { server, fixture, put, managersOf };
});

const email = (i: number) => `user${i}@acme.example`;

test('items are written and echoed normalised; a new period overrides the stored one of its user [conf:managers-envelope] [conf:managers-one-per-period] [conf:managers-override] [conf:managers-response] [conf:managers-dates]', async () => {
  const { put, managersOf } = await served();
  const first = await put([{ user: 'USER1@acme.example', manager: email(2), start_date: '2026-01' }]);
  assert.equal(first.status, 200, first.text);
  assert.deepEqual(first.body, { count: 1, data: [{ user: email(1), manager: email(2), start_date: '2026-01', end_date: null }] });
  const second = await put([{ user: email(1), manager: email(3), start_date: '2026-04', end_date: '2026-06' }]);
  assert.equal(second.status, 200, second.text);
  assert.deepEqual(await managersOf(email(1)), [
    { user: email(1), manager: email(2), start_date: '2026-01', end_date: '2026-03' },
    { user: email(1), manager: email(3), start_date: '2026-04', end_date: '2026-06' },
    { user: email(1), manager: email(2), start_date: '2026-07', end_date: null },
  ]);
});

test('the rules of the groups bulk refuse the whole request (422), at the item that breaks them [conf:managers-all-or-nothing] [conf:managers-overlap-in-payload]', async () => {
  const { put, managersOf } = await served();
  const valid = { user: email(4), manager: email(5) };
  // A cycle is pointed at by an item that closes it: here either of its two items.
  const cases: [string, unknown[], RegExp][] = [
    ['an unknown manager', [{ user: email(6), manager: 'nobody@acme.example' }], /^\/data\/1\/manager$/],
    ['two items of one user sharing a month', [{ user: email(6), manager: email(7), end_date: '2026-05' }, { user: email(6), manager: email(8), start_date: '2026-05' }], /^\/data\/2$/],
    ['a cycle', [{ user: email(5), manager: email(4) }], /^\/data\/[01]\/manager$/],
  ];
  for (const [name, items, pointer] of cases) {
    const response = await put([valid, ...items]);
    assert.equal(response.status, 422, `${name}: ${response.text}`);
    assert.equal(response.body.errors.length, 1, name);
    assert.match(response.body.errors[0].pointer, pointer, name);
  }
  assert.deepEqual(await managersOf(email(4)), [], 'nothing was written');
});

test('group items, extra fields, an empty list and more than 200 items are refused (400) [conf:managers-max-200]', async () => {
  const { put } = await served();
  const cases: [string, unknown[], string][] = [
    ['a group item', [{ user: email(9), group_dimension: 'region', group: 'EMEA', start_date: '2026-01' }], '/data/0/manager'],
    ['an extra field', [{ user: email(9), manager: email(10), note: 'x' }], '/data/0/note'],
    ['an empty list', [], '/data'],
    ['201 items', Array.from({ length: 201 }, () => ({ user: email(9), manager: email(10) })), '/data'],
  ];
  for (const [name, items, pointer] of cases) {
    const response = await put(items);
    assert.equal(response.status, 400, `${name}: ${response.text}`);
    assert.ok(response.body.errors.some((e: { pointer: string }) => e.pointer === pointer), `${name}: ${response.text}`);
  }
});
