import { createHash } from 'node:crypto';
import { formatMonth, type MonthIndex } from './months.js';

/**
 * Statements (docs/rules.md#statements): the statement reporting records (lines) of one user in
 * one month form that user's statement of the month. A statement has a status and a total
 * commission, kept once per statement and shown on each of its lines in v2
 * (`standard.status`, `standard.total_commission`).
 */

/** Every status a statement can have, in the order of its lifecycle. */
export const STATEMENT_STATUSES = ['draft', 'validated', 'sent_to_payroll', 'paid'] as const;

export type StatementStatus = (typeof STATEMENT_STATUSES)[number];

export const isStatementStatus = (value: unknown): value is StatementStatus => (STATEMENT_STATUSES as readonly unknown[]).includes(value);

/**
 * The status of a statement loaded without one: `validated` for a month before `currentMonth`
 * (the month of the load, UTC), `draft` for that month and later ones.
 */
export function defaultStatementStatus(month: MonthIndex, currentMonth: MonthIndex): StatementStatus {
  return month < currentMonth ? 'validated' : 'draft';
}

/** The month (UTC) of a time. */
export function monthOfTime(time: Date): MonthIndex {
  return time.getUTCFullYear() * 12 + time.getUTCMonth();
}

/**
 * The id of the statement of a user (by id) in a month: `stm_` and 12 lowercase hex digits, as
 * the ids the service gives users look, derived from the user's id and the month, so that it is
 * the same on every server and both engines, and never stored.
 */
export function statementId(userId: string, month: MonthIndex): string {
  return `stm_${createHash('sha256').update(`compdata statement ${userId} ${formatMonth(month)}`).digest('hex').slice(0, 12)}`;
}
