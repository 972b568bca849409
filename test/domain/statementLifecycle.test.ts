import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { changeAllowed, eventOfChange, refusedChanges, sourceStatus, TARGET_STATUSES } from '../../src/domain/statementLifecycle.js';
import { STATEMENT_STATUSES, type StatementStatus } from '../../src/domain/statements.js';

const status = fc.constantFrom(...STATEMENT_STATUSES);
const rank = (value: StatementStatus) => STATEMENT_STATUSES.indexOf(value);

test('changeAllowed: the lifecycle as its examples', async (t) => {
  const cases: [string, { given: [StatementStatus, StatementStatus]; want: boolean }][] = [
    ['draft to validated', { given: ['draft', 'validated'], want: true }],
    ['validated to sent_to_payroll', { given: ['validated', 'sent_to_payroll'], want: true }],
    ['sent_to_payroll to paid', { given: ['sent_to_payroll', 'paid'], want: true }],
    ['draft straight to payroll', { given: ['draft', 'sent_to_payroll'], want: false }],
    ['validated straight to paid', { given: ['validated', 'paid'], want: false }],
    ['paid back to draft', { given: ['paid', 'draft'], want: false }],
    ['sent_to_payroll back to validated', { given: ['sent_to_payroll', 'validated'], want: false }],
    ['sent_to_payroll again', { given: ['sent_to_payroll', 'sent_to_payroll'], want: false }],
  ];
  for (const [name, { given, want }] of cases) await t.test(name, () => assert.equal(changeAllowed(...given), want));
});

test('changeAllowed: exactly one step forward', () => {
  fc.assert(fc.property(status, status, (from, to) => changeAllowed(from, to) === (rank(to) === rank(from) + 1)));
});

test('any walk of allowed changes from draft visits the statuses in order and ends at paid or stops', () => {
  fc.assert(
    fc.property(fc.array(status, { maxLength: 12 }), (wanted) => {
      let current: StatementStatus = 'draft';
      const visited: StatementStatus[] = [current];
      for (const to of wanted) {
        if (!changeAllowed(current, to)) continue;
        current = to;
        visited.push(current);
      }
      assert.deepEqual(visited, STATEMENT_STATUSES.slice(0, visited.length));
    }),
  );
});

test('sourceStatus: the one status a target is reached from', () => {
  for (const to of TARGET_STATUSES) {
    assert.ok(changeAllowed(sourceStatus(to), to));
    assert.equal(STATEMENT_STATUSES.filter((from) => changeAllowed(from, to)).length, 1);
  }
});

test('refusedChanges: all or nothing, the refused ones by index', () => {
  fc.assert(
    fc.property(fc.array(status, { maxLength: 20 }), fc.constantFrom(...TARGET_STATUSES), (statuses, to) => {
      const refused = refusedChanges(statuses, to);
      assert.deepEqual(refused, statuses.flatMap((from, index) => (from === sourceStatus(to) ? [] : [index])));
    }),
  );
});

test('eventOfChange: only the hand-over to payroll raises an event', () => {
  assert.deepEqual(STATEMENT_STATUSES.map(eventOfChange), [undefined, undefined, 'statement.sent_to_payroll', undefined]);
});
