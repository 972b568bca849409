import { randomBytes } from 'node:crypto';
import { asciiLowerCase } from '../../domain/emailKey.js';
import { eventOfChange, refusedChanges, sourceStatus, type TargetStatus } from '../../domain/statementLifecycle.js';
import { statementId } from '../../domain/statements.js';
import type { StoredStatement, StatusChangeSteps } from '../engine/webhookSteps.js';
import type { WriteSteps } from '../engine/transactionSteps.js';
import type { AdminStore } from '../store.js';
import type { StoreContext } from '../storeContext.js';
import type { StatementSelection, StatementStatusChange, StatusChangeOutcome } from '../vocabulary/webhookShapes.js';

/** A call's `webhook-id` (Standard Webhooks): `msg_` and 24 hex digits, the same for every attempt of the call. */
const newCallId = (): string => `msg_${randomBytes(12).toString('hex')}`;

const changeOf = (statement: StoredStatement, to: TargetStatus): StatementStatusChange => ({
  id: statementId(statement.userId, statement.month),
  user: statement.email,
  month: statement.month,
  from: statement.status,
  to,
});

/**
 * Changes of statements' statuses by hand (docs/rules.md#statements), the one implementation
 * behind the administration API and the CLI: in one transaction of the tenant, the statements
 * chosen, their statuses, and the outbox's calls for the webhook endpoints that want the event
 * (docs/administration.md#webhook-endpoints): all or nothing.
 */
export function statementChanges({ engine }: StoreContext): Pick<AdminStore, 'changeStatementStatus'> {
  return {
    changeStatementStatus: (tenantName, to, selection) =>
      engine.inWriteTransaction(async (steps): Promise<StatusChangeOutcome> => {
        const tenant = await steps.findTenant(tenantName);
        if (!tenant) return { outcome: 'unknownTenant' };
        await steps.lockTenant(tenant.id);
        const chosen = await chosenStatements(steps.statusChangeSteps(tenant.id), to, selection);
        if (!Array.isArray(chosen)) return chosen;
        const refused = refusedChanges(
          chosen.map((statement) => statement.status),
          to,
        );
        if (refused.length > 0) return { outcome: 'refused', changes: refused.map((index) => changeOf(chosen[index]!, to)) };
        const calls = chosen.length === 0 ? 0 : await changeStatuses(steps, tenant.id, chosen, to);
        return { outcome: 'changed', changes: chosen.map((statement) => changeOf(statement, to)), calls };
      }),
  };
}

/**
 * The statements a selection takes: those listed (each once, in the order first listed), or every
 * statement of the user or period whose status the lifecycle lets change to `to`.
 */
async function chosenStatements(
  steps: StatusChangeSteps,
  to: TargetStatus,
  selection: StatementSelection,
): Promise<StoredStatement[] | Extract<StatusChangeOutcome, { outcome: 'missing' }> | { outcome: 'unknownUser' }> {
  if ('user' in selection) {
    const key = asciiLowerCase(selection.user);
    if (!(await steps.hasUser(key))) return { outcome: 'unknownUser' };
    return steps.statementsOfUser(key, sourceStatus(to));
  }
  if ('period' in selection) return steps.statementsInPeriod(selection.period.start, selection.period.end, sourceStatus(to));
  const chosen = new Map<string, StoredStatement>();
  for (const ref of selection.statements) {
    const found = await steps.statementOf(asciiLowerCase(ref.user), ref.month);
    if (!found) return { outcome: 'missing', statement: ref };
    chosen.set(`${found.userPk} ${found.month}`, found);
  }
  return [...chosen.values()];
}

/** Writes the new statuses (a change of each statement's lines, stamped) and the calls they raise; how many calls. */
async function changeStatuses(steps: WriteSteps, tenantId: number, chosen: readonly StoredStatement[], to: TargetStatus): Promise<number> {
  await steps.dataChanged(tenantId);
  const stamp = await steps.nextStamp(tenantId, false);
  await steps.loadSteps(tenantId).setStatementStatuses(
    chosen.map(({ userPk, month }) => ({ userPk, month, status: to })),
    stamp,
  );
  const event = eventOfChange(to);
  if (!event) return 0;
  const changes = steps.statusChangeSteps(tenantId);
  const endpoints = await changes.endpointsWanting(event);
  const createdAt = new Date().toISOString();
  const calls = chosen.flatMap(({ userId, month }) => endpoints.map((endpointId) => ({ id: newCallId(), endpointId, event, userId, month, createdAt })));
  if (calls.length > 0) await changes.insertCalls(calls);
  return calls.length;
}
