import { randomBytes } from 'node:crypto';
import type { StoredUserRow, UserSteps } from '../engine/apiWriteSteps.js';
import { asciiLowerCase } from '../../domain/emailKey.js';
import { renderUser, type ReportingUser } from '../../domain/reportingJson.js';
import {
  itemsWithoutId,
  planUsers,
  serviceUserId,
  userObject,
  withGivenIds,
  type AttributeValue,
  type StoredUserState,
  type UserUpsert,
} from '../../domain/userItems.js';
import { renderUserReference } from '../../domain/v2Json.js';
import type { UserRerender } from '../engine/commonWriteSteps.js';
import type { WriteOutcome } from '../vocabulary/writeShapes.js';

/**
 * `PUT /v1/users/bulk` (docs/rules.md#users) on any engine, inside the engine's write
 * transaction: the stored users the items name, the plan (domain/userItems.ts), then the users
 * written and the user object rewritten inside their reporting records, which take a new change
 * stamp so that a sync sees them. A new user sent without an id gets one from the service
 * first. A broken rule is found before the first write.
 */
export async function upsertUsersWith(steps: UserSteps, sent: readonly UserUpsert[]): Promise<WriteOutcome<Record<string, AttributeValue>[]>> {
  const ids = sent.flatMap((item) => (typeof item.fields.id === 'string' ? [item.fields.id] : []));
  const rowsFound = await steps.users(sent.map((item) => asciiLowerCase(item.email)), ids);
  const storedJson = new Map(rowsFound.map((row) => [row.pk, row.json]));
  const stored = rowsFound.map(storedUserState);
  const wanted = itemsWithoutId(sent, new Map(stored.map((row) => [asciiLowerCase(row.user.email), row])));
  const items = wanted.length === 0 ? sent : withGivenIds(sent, await newIds(steps, wanted, new Set(ids)));
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

/**
 * A new id (serviceUserId) for each item of `wanted`, held by no stored user of the tenant and
 * none of the ids `sent`: drawn again, for the few that clash, until none does (48 random bits
 * make a clash rare; the check makes it harmless, since users are written by id).
 */
async function newIds(steps: UserSteps, wanted: readonly number[], sent: ReadonlySet<string>): Promise<Map<number, string>> {
  const given = new Map<number, string>();
  let missing = [...wanted];
  for (let round = 0; missing.length > 0; round += 1) {
    if (round === 16) throw new Error('could not draw a free user id in 16 rounds');
    const drawn = missing.map(() => serviceUserId(randomBytes(6)));
    const held = new Set((await steps.users([], drawn)).map((row) => (JSON.parse(row.json) as ReportingUser).id));
    const taken = new Set([...sent, ...given.values()]);
    const clashing: number[] = [];
    for (const [i, index] of missing.entries()) {
      const id = drawn[i]!;
      if (held.has(id) || taken.has(id)) clashing.push(index);
      else {
        given.set(index, id);
        taken.add(id);
      }
    }
    missing = clashing;
  }
  return given;
}

/** The text of a user object inside a record body, before and after a change of the user. */
export function userInRecords(userPk: number, before: string, after: string): UserRerender {
  const reference = (json: string) => `"standard.user":${renderUserReference(JSON.parse(json) as ReportingUser)}`;
  return { userPk, before: `"user":${before}`, after: `"user":${after}`, beforeV2: reference(before), afterV2: reference(after) };
}

function storedUserState(row: StoredUserRow): StoredUserState {
  return { pk: row.pk, user: JSON.parse(row.json) as ReportingUser, attributes: JSON.parse(row.attributes) as Record<string, AttributeValue> };
}
