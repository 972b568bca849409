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
/**
 * A change of users: their new objects in their user-month rows (recordParts.ts), which take the
 * change's stamp and its time, so that every record of theirs counts as changed (for a sync and
 * v2's time of last change) while no record is written. A row made by this same transaction
 * keeps minus its stamp (see ../sqlite/migrations.ts, 5), as dimensionValues.ts `setFields` does.
 */
export const rerenderUsersInRecords = statement<[number, number[], string[], number]>(
  `UPDATE dimension_values d SET user_json = c.json, stamp = CASE d.stamp WHEN -$4::bigint THEN d.stamp ELSE $4 END,
     changed_at = CASE d.stamp WHEN -$4::bigint THEN d.changed_at ELSE ${stampTime('$1', '$4')} END
   FROM unnest($2::bigint[], $3::text[]) AS c (user_pk, json)
   WHERE d.tenant_id = $1 AND d.user_pk = c.user_pk`,
);

const USER_KEY = '"user":';
/** The columns of {@link rerenderUsersInRecords} from the changes of users (`$2`, `$3`): each user's key and new object. */
export function rerenderColumns(changes: readonly UserRerender[]): [number[], string[]] {
  return [
    changes.map((c) => c.userPk),
    changes.map((c) => {
      if (!c.after.startsWith(USER_KEY)) throw new Error(`not a user field: ${c.after.slice(0, 20)}`);
      return c.after.slice(USER_KEY.length);
    }),
  ];
}

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
