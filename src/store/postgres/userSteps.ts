import type { UserRerender } from '../engine/commonWriteSteps.js';
import type { StoredUserRow, UserSteps } from '../engine/apiWriteSteps.js';
import { changeStamps, stampTime } from './changeStamps.js';
import { rowsOf, run, statement, type Queryable } from './connection.js';
import { newKey, tenantRows } from './tenantKeys.js';
import { bumpDataVersion } from './dataVersion.js';

const users = statement<[number, string[], string[]], StoredUserRow>(
  'SELECT pk, json, attributes FROM users WHERE tenant_id = $1 AND (email_key = ANY ($2) OR id = ANY ($3))',
);
/** Upserts users in the order given. */
const upsertUsers = statement<[number, string[], string[], string[], string[]], { id: string; pk: number }>(
  `INSERT INTO users (tenant_id, pk, id, email, json, attributes)
   SELECT s.tenant_id, ${newKey('users', 'u.n')}, u.id, u.email, u.json, u.attributes
   FROM ${tenantRows('unnest($2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS u (id, email, json, attributes, n)')} ORDER BY u.n
   ON CONFLICT (tenant_id, id) DO UPDATE SET email = excluded.email, json = excluded.json, attributes = excluded.attributes,
     archived_after = NULL
   RETURNING id, pk`,
);
/** Rewrites the user object inside each user's record bodies (`old` to `new`), stamping them. */
export const rerenderUsersInRecords = statement<[number, number[], string[], string[], string[], string[], number]>(
  `UPDATE reporting_records r SET body = replace(r.body, c.old, c.new), body_v2 = replace(r.body_v2, c.old_v2, c.new_v2), stamp = $7,
     changed_at = ${stampTime('$1', '$7')}
   FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[]) AS c (user_pk, old, new, old_v2, new_v2)
   WHERE r.tenant_id = $1 AND r.user_pk = c.user_pk`,
);

/** The columns of {@link rerenderUsersInRecords} from the changes of users (`$2`..`$6`). */
export const rerenderColumns = (changes: readonly UserRerender[]) =>
  [changes.map((c) => c.userPk), changes.map((c) => c.before), changes.map((c) => c.after), changes.map((c) => c.beforeV2), changes.map((c) => c.afterV2)] as const;

/** The steps of `PUT /v1/users/bulk` (../writes/userBulk.ts) on PostgreSQL: each one statement over arrays. */
export function userSteps(db: Queryable, tenantId: number): UserSteps {
  return {
    users: (emailKeys, ids) => rowsOf(db, users, tenantId, [...emailKeys], [...ids]),
    upsertUsers: (rows) =>
      rowsOf(db, upsertUsers, tenantId, rows.map((r) => r.id), rows.map((r) => r.email), rows.map((r) => r.json), rows.map((r) => r.attributes)),
    rerenderUsersInRecords: async (changes, stamp) =>
      void (await run(db, rerenderUsersInRecords, tenantId, ...rerenderColumns(changes), stamp)),
    nextStamp: async () => (await changeStamps(db).next(tenantId)).stamp,
    dataChanged: () => bumpDataVersion(db, tenantId),
  };
}
