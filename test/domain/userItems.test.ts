import assert from 'node:assert/strict';
import { test } from 'node:test';
import { archiveEnd } from '../../src/domain/archiveItems.js';
import { parseMonth } from '../../src/domain/months.js';
import { itemsWithoutId, planUsers, serviceUserId, userUpsertOf, withGivenIds, type StoredUserState } from '../../src/domain/userItems.js';

/**
 * The pure rules of users (docs/rules.md#users) and of archive items without `end_date`
 * (docs/rules.md#archived-users): the ids the service gives, what an empty field reads as,
 * which items need an id, and the current month in UTC.
 */
const stored: StoredUserState = {
  pk: 1,
  user: { id: 'u1', email: 'ada@example.com', name: 'Ada', role: 'AE', currency: 'EUR', calculation_currency: 'USD', country: 'FR', code: 'C1' },
  attributes: {},
};
const byEmail = new Map([['ada@example.com', stored]]);

test("the service's ids are usr_ and 12 lowercase hex digits of 6 random bytes", () => {
  assert.equal(serviceUserId(Uint8Array.from([0, 1, 0xab, 0xcd, 0xef, 0xff])), 'usr_0001abcdefff');
  assert.throws(() => serviceUserId(new Uint8Array(5)), RangeError);
});

test('null empties a field to "" (XXX for a currency); a new user has every field it is sent without empty [conf:users-empty-values]', () => {
  const items = [userUpsertOf({ email: 'ADA@example.com', name: null, currency: null, id: null }), userUpsertOf({ email: 'bo@example.com', role: 'SDR' })];
  assert.deepEqual(itemsWithoutId(items, byEmail), [1], 'only the new user without an id');
  const plan = planUsers(withGivenIds(items, new Map([[1, 'usr_000000000001']])), byEmail, new Map());
  assert.ok(Array.isArray(plan));
  assert.deepEqual(plan.map((planned) => planned.user), [
    { ...stored.user, email: 'ADA@example.com', name: '', currency: 'XXX' },
    { id: 'usr_000000000001', email: 'bo@example.com', name: '', role: 'SDR', currency: 'XXX', calculation_currency: 'XXX', country: '', code: '' },
  ]);
});

test('two items of one new e-mail ask for one id, and the later one is refused', () => {
  const items = [userUpsertOf({ email: 'cy@example.com' }), userUpsertOf({ email: 'CY@example.com' })];
  assert.deepEqual(itemsWithoutId(items, byEmail), [0]);
  const plan = planUsers(withGivenIds(items, new Map([[0, 'usr_000000000002']])), byEmail, new Map());
  assert.ok(!Array.isArray(plan));
  assert.deepEqual(plan.violations.map((violation) => [violation.index, violation.field]), [[1, 'email']]);
});

test('an archive item without end_date ends in the current month in UTC; with one, in its month', () => {
  const nearMidnight = new Date('2026-03-31T23:30:00-05:00');
  assert.equal(archiveEnd(undefined, nearMidnight), parseMonth('2026-04'), 'UTC, not the local month');
  assert.equal(archiveEnd(parseMonth('2025-12'), nearMidnight), parseMonth('2025-12'));
});
