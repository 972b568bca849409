import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultStatementStatus, isStatementStatus, monthOfTime, statementId, STATEMENT_STATUSES } from '../../src/domain/statements.js';

test('a statement id is stm_ and 12 hex digits, derived from the user and the month', () => {
  const id = statementId('usr_fd7247c787bd', 2026 * 12 + 3);
  assert.match(id, /^stm_[0-9a-f]{12}$/);
  assert.equal(statementId('usr_fd7247c787bd', 2026 * 12 + 3), id);
  assert.notEqual(statementId('usr_fd7247c787bd', 2026 * 12 + 4), id);
  assert.notEqual(statementId('usr_fd7247c787be', 2026 * 12 + 3), id);
});

test('the statuses in lifecycle order, and the default of a statement loaded without one', () => {
  assert.deepEqual(STATEMENT_STATUSES, ['draft', 'validated', 'sent_to_payroll', 'paid']);
  assert.ok(isStatementStatus('sent_to_payroll'));
  assert.ok(!isStatementStatus('sent to payroll'));
  const now = monthOfTime(new Date('2026-11-28T02:00:00Z'));
  assert.equal(now, 2026 * 12 + 10);
  assert.equal(defaultStatementStatus(now - 1, now), 'validated');
  assert.equal(defaultStatementStatus(now, now), 'draft');
  assert.equal(defaultStatementStatus(now + 1, now), 'draft');
});
