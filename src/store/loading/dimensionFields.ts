import type { UserMonthFragment } from '../../domain/bulkPlan.js';
import { renderDimensionFragment, type GroupPeriod } from '../../domain/reportingJson.js';
import type { FieldSteps } from '../engine/loadSteps.js';

/** Users re-rendered per round of steps. */
const USERS_PER_ROUND = 1_000;

/**
 * Brings the dimension fields (`dimension_values`: the fields of each user and month that has
 * reporting records) in step with the group attributions, inside the transaction that changed
 * them, so that the next read shows the change (docs/rules.md#metrics-and-dimensions). For a
 * round of users: one read of their stored fields and periods, the fields rendered here, one
 * write of those whose text changed.
 *
 * With `userPks`, the fields of those users change, stamped `stamp`. Without (the tenant's
 * dimensions changed), every field and so every record changes: the records take the stamp
 * and the fields minus it, so that a sync reads them in record order rather than passing over
 * every record once per field row.
 */
export async function refreshDimensionFields(steps: FieldSteps, stamp: number, userPks?: Iterable<number>): Promise<void> {
  const keys = await steps.dimensionKeys();
  if (userPks) {
    const pks = [...userPks];
    for (let at = 0; at < pks.length; at += USERS_PER_ROUND) await render(steps, keys, pks.slice(at, at + USERS_PER_ROUND), stamp);
    return;
  }
  await steps.setEmptyFragment(renderDimensionFragment(keys, [], 0));
  await steps.stampRecords(stamp);
  for (let after = 0; ; ) {
    const pks = await steps.usersAfter(after, USERS_PER_ROUND);
    if (pks.length === 0) return;
    await render(steps, keys, pks, -stamp);
    after = pks[pks.length - 1]!;
  }
}

async function render(steps: FieldSteps, keys: readonly string[], userPks: readonly number[], stamp: number): Promise<void> {
  const { stored, periods } = await steps.fieldsOfUsers(userPks);
  if (stored.length === 0) return;
  const periodsOf = new Map<number, GroupPeriod[]>();
  for (const period of periods) {
    const list = periodsOf.get(period.userPk);
    if (list) list.push(period);
    else periodsOf.set(period.userPk, [period]);
  }
  const changed: UserMonthFragment[] = [];
  for (const { userPk, month, fragment } of stored) {
    const rendered = renderDimensionFragment(keys, periodsOf.get(userPk) ?? [], month);
    if (rendered !== fragment) changed.push({ userPk, month, fragment: rendered });
  }
  if (changed.length > 0) await steps.setFields(changed, stamp);
}
