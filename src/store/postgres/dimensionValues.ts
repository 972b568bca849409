import type { GroupPeriod } from '../../domain/reportingJson.js';
import type { FieldSteps } from '../engine/loadSteps.js';
import { stampTime } from './changeStamps.js';
import { rowsOf, run, statement, type Queryable } from './connection.js';

/**
 * The dimension fields of a tenant's users (`dimension_values`) on PostgreSQL, set-wise: for a
 * round of users, one read of their stored fields, one of their periods, one write of the
 * changed ones (the rendering: ../loading/dimensionFields.ts).
 */

const dimensionKeys = statement<[number], { key: string }>('SELECT key FROM dimensions WHERE tenant_id = $1 ORDER BY position');
const storedFields = statement<[number, number[]], { user_pk: number; month: number; fragment: string }>(
  `SELECT v.user_pk, v.month, v.fragment FROM dimension_values v WHERE v.tenant_id = $1 AND v.user_pk = ANY ($2)`,
);
const periodsOfUsers = statement<[number, number[]], GroupPeriod & { user_pk: number }>(
  `SELECT a.user_pk, d.key AS "dimensionKey", g.name AS "group", a.start_month AS start, a.end_month AS "end"
   FROM group_attributions a
   JOIN groups g ON g.tenant_id = a.tenant_id AND g.pk = a.group_pk
   JOIN dimensions d ON d.tenant_id = a.tenant_id AND d.pk = a.dimension_pk
   WHERE a.tenant_id = $1 AND a.user_pk = ANY ($2)`,
);
// A row made by this same transaction keeps minus its stamp (see ../sqlite/migrations.ts, 5).
const setFields = statement<[number, number[], number[], string[], number]>(
  `UPDATE dimension_values v SET fragment = c.fragment, stamp = CASE v.stamp WHEN -$5::bigint THEN v.stamp ELSE $5 END,
     changed_at = CASE v.stamp WHEN -$5::bigint THEN v.changed_at ELSE ${stampTime('$1', '$5')} END
   FROM unnest($2::bigint[], $3::integer[], $4::text[]) AS c (user_pk, month, fragment)
   WHERE v.tenant_id = $1 AND v.user_pk = c.user_pk AND v.month = c.month`,
);
const usersAfter = statement<[number, number, number], { pk: number }>('SELECT pk FROM users WHERE tenant_id = $1 AND pk > $2 ORDER BY pk LIMIT $3');
const setEmptyFragment = statement<[string, number]>('UPDATE tenant_state SET empty_fragment = $1 WHERE tenant_id = $2');
const stampRecords = statement<[number, number]>(`UPDATE reporting_records SET stamp = $2, changed_at = ${stampTime('$1', '$2')} WHERE tenant_id = $1`);

/** The stored fields of these users in every month, and their group periods. */
export async function fieldsOfUsers(db: Queryable, tenantId: number, userPks: readonly number[]) {
  const stored = (await rowsOf(db, storedFields, tenantId, [...userPks])).map((row) => ({ userPk: row.user_pk, month: row.month, fragment: row.fragment }));
  if (stored.length === 0) return { stored, periods: [] };
  const periods = (await rowsOf(db, periodsOfUsers, tenantId, [...userPks])).map(({ user_pk, ...period }) => ({ ...period, userPk: user_pk }));
  return { stored, periods };
}

export function fieldSteps(db: Queryable, tenantId: number): FieldSteps {
  return {
    dimensionKeys: async () => (await rowsOf(db, dimensionKeys, tenantId)).map((row) => row.key),
    fieldsOfUsers: (userPks) => fieldsOfUsers(db, tenantId, userPks),
    setFields: async (changed, stamp) =>
      void (await run(db, setFields, tenantId, changed.map((c) => c.userPk), changed.map((c) => c.month), changed.map((c) => c.fragment), stamp)),
    usersAfter: async (afterPk, n) => (await rowsOf(db, usersAfter, tenantId, afterPk, n)).map((row) => row.pk),
    setEmptyFragment: async (fragment) => void (await run(db, setEmptyFragment, fragment, tenantId)),
    stampRecords: async (stamp) => void (await run(db, stampRecords, tenantId, stamp)),
  };
}
