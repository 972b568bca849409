import type { StatementStatus } from './statements.js';

/**
 * The lifecycle of a statement (docs/rules.md#statements): the changes of status an
 * administrator may make, each one step forward, none back: `draft` → `validated` →
 * `sent_to_payroll` → `paid`. A load of data still sets any status (it states what is).
 */
const NEXT_STATUS: Readonly<Record<StatementStatus, StatementStatus | undefined>> = {
  draft: 'validated',
  validated: 'sent_to_payroll',
  sent_to_payroll: 'paid',
  paid: undefined,
};

/** The statuses a change can lead to: every status but the first. */
export const TARGET_STATUSES = ['validated', 'sent_to_payroll', 'paid'] as const;

export type TargetStatus = (typeof TARGET_STATUSES)[number];

/** Whether the lifecycle lets a statement of status `from` change to `to`. */
export const changeAllowed = (from: StatementStatus, to: StatementStatus): boolean => NEXT_STATUS[from] === to;

/** The one status from which a statement may change to `to` (`validated` for `sent_to_payroll`). */
export function sourceStatus(to: TargetStatus): StatementStatus {
  const from = (Object.keys(NEXT_STATUS) as StatementStatus[]).find((status) => NEXT_STATUS[status] === to);
  return from!;
}

/** The event a change to `to` raises for the webhook endpoints that want it, if any (only the hand-over to payroll). */
export const eventOfChange = (to: StatementStatus): 'statement.sent_to_payroll' | undefined => (to === 'sent_to_payroll' ? 'statement.sent_to_payroll' : undefined);

/**
 * A change of many statements to `to`, all or nothing: the indexes of the statements (given by
 * their statuses) that may not make it; the change is made only when there is none.
 */
export function refusedChanges(statuses: readonly StatementStatus[], to: StatementStatus): number[] {
  return statuses.flatMap((status, index) => (changeAllowed(status, to) ? [] : [index]));
}

/** Why the lifecycle refuses a statement's change, in words (`is draft: only a validated statement can become sent_to_payroll`). */
export function refusalReason(from: StatementStatus, to: TargetStatus): string {
  return `is ${from}: only a ${sourceStatus(to)} statement can become ${to}`;
}
