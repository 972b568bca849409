import type { StoredUserRow, UserSteps } from '../engine/apiWriteSteps.js';
import { asciiLowerCase } from '../../domain/emailKey.js';
import { renderUser, type ReportingUser } from '../../domain/reportingJson.js';
import { planUsers, userObject, type AttributeValue, type StoredUserState, type UserUpsert } from '../../domain/userItems.js';
import { renderUserReference } from '../../domain/v2Json.js';
import type { UserRerender } from '../engine/commonWriteSteps.js';
import type { WriteOutcome } from '../vocabulary/writeShapes.js';

/**
 * `PUT /v1/users/bulk` (docs/rules.md#users) on any engine, inside the engine's write
 * transaction: the stored users the items name, the plan (domain/userItems.ts), then the users
 * written and the user object rewritten inside their reporting records, which take a new change
 * stamp so that a sync sees them. A broken rule is found before the first write.
 */
export async function upsertUsersWith(steps: UserSteps, items: readonly UserUpsert[]): Promise<WriteOutcome<Record<string, AttributeValue>[]>> {
  const ids = items.flatMap((item) => (typeof item.fields.id === 'string' ? [item.fields.id] : []));
  const rowsFound = await steps.users(items.map((item) => asciiLowerCase(item.email)), ids);
  const storedJson = new Map(rowsFound.map((row) => [row.pk, row.json]));
  const stored = rowsFound.map(storedUserState);
  const plan = planUsers(
    items,
    new Map(stored.map((row) => [asciiLowerCase(row.user.email), row])),
    new Map(stored.map((row) => [row.user.id, row])),
  );
  if (!Array.isArray(plan)) return { broken: plan };
  const rows = plan.map(({ user, attributes }) => ({ id: user.id, email: user.email, json: renderUser(user), attributes: JSON.stringify(attributes) }));
  await steps.upsertUsers(rows);
  const changes = plan.flatMap(({ before }, i) => {
    const was = before && storedJson.get(before.pk)!;
    return was !== undefined && was !== rows[i]!.json ? [userInRecords(before!.pk, was, rows[i]!.json)] : [];
  });
  if (changes.length > 0) await steps.rerenderUsersInRecords(changes, await steps.nextStamp());
  await steps.dataChanged();
  return { written: plan.map(({ user, attributes }) => userObject(user, attributes)) };
}

/** The text of a user object inside a record body, before and after a change of the user. */
export function userInRecords(userPk: number, before: string, after: string): UserRerender {
  const reference = (json: string) => `"standard.user":${renderUserReference(JSON.parse(json) as ReportingUser)}`;
  return { userPk, before: `"user":${before}`, after: `"user":${after}`, beforeV2: reference(before), afterV2: reference(after) };
}

function storedUserState(row: StoredUserRow): StoredUserState {
  return { pk: row.pk, user: JSON.parse(row.json) as ReportingUser, attributes: JSON.parse(row.attributes) as Record<string, AttributeValue> };
}
