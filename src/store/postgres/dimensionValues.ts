import { renderDimensionFragment, type GroupPeriod } from '../../domain/reportingJson.js';
import { rowsOf, run, statement, type Queryable } from './connection.js';

/**
 * Keeps `dimension_values` (the dimension fields of each user and month that has reporting
 * records) in step with the group attributions, set-wise: for a chunk of users, one read of
 * their stored fields, one of their periods, the fields rendered in JS, one write of those
 * whose text changed. Call inside the transaction that changed the attributions or added
 * records, so that the next read shows the change (docs/rules.md#metrics-and-dimensions).
 */

/** Users re-rendered per round of statements. */
const USERS_PER_ROUND = 1_000;
/** An open bound as a number the database compares months with. */
const LOWEST = -2_147_483_648;
const HIGHEST = 2_147_483_647;

type Bounds = [userPks: number[], firsts: number[], lasts: number[]];

const dimensionKeys = statement<[number], { key: string }>('SELECT key FROM dimensions WHERE tenant_id = $1 ORDER BY position');
const storedFragments = statement<[number, ...Bounds], { user_pk: number; month: number; fragment: string }>(
  `SELECT v.user_pk, v.month, v.fragment
   FROM unnest($2::bigint[], $3::integer[], $4::integer[]) AS w (user_pk, first, last)
   JOIN dimension_values v ON v.tenant_id = $1 AND v.user_pk = w.user_pk AND v.month BETWEEN w.first AND w.last`,
);
const periodsOfUsers = statement<[number, ...Bounds], GroupPeriod & { user_pk: number }>(
  `SELECT a.user_pk, d.key AS "dimensionKey", g.name AS "group", a.start_month AS start, a.end_month AS "end"
   FROM unnest($2::bigint[], $3::integer[], $4::integer[]) AS w (user_pk, first, last)
   JOIN group_attributions a ON a.tenant_id = $1 AND a.user_pk = w.user_pk
     AND a.start_month <= w.last AND (a.end_month IS NULL OR a.end_month >= w.first)
   JOIN groups g ON g.tenant_id = a.tenant_id AND g.pk = a.group_pk
   JOIN dimensions d ON d.tenant_id = a.tenant_id AND d.pk = a.dimension_pk`,
);
// A row made by this same transaction keeps minus its stamp (see ../sqlite/migrations.ts, 5).
const updateFragments = statement<[number, number[], number[], string[], number]>(
  `UPDATE dimension_values v SET fragment = c.fragment, stamp = CASE v.stamp WHEN -$5::bigint THEN v.stamp ELSE $5 END
   FROM unnest($2::bigint[], $3::integer[], $4::text[]) AS c (user_pk, month, fragment)
   WHERE v.tenant_id = $1 AND v.user_pk = c.user_pk AND v.month = c.month`,
);
const usersAfter = statement<[number, number, number], { pk: number }>('SELECT pk FROM users WHERE tenant_id = $1 AND pk > $2 ORDER BY pk LIMIT $3');
const setEmptyFragment = statement<[string, number]>('UPDATE tenants SET empty_fragment = $1 WHERE id = $2');
const stampRecords = statement<[number, number]>('UPDATE reporting_records SET stamp = $2 WHERE tenant_id = $1');

/**
 * Re-renders every field of `userPks`, or of every user of the tenant (its dimensions changed);
 * `stamp`: of the changes. In the second case every record changes: the records take the stamp
 * and the fields minus it, as on SQLite (../sqlite/dimensionValues.ts).
 */
export async function refreshUsers(db: Queryable, tenantId: number, stamp: number, userPks?: Iterable<number>): Promise<void> {
  const keys = (await rowsOf(db, dimensionKeys, tenantId)).map((row) => row.key);
  const all = (pks: number[]): Bounds => [pks, pks.map(() => LOWEST), pks.map(() => HIGHEST)];
  if (userPks) {
    const pks = [...userPks];
    for (let at = 0; at < pks.length; at += USERS_PER_ROUND) await render(db, tenantId, stamp, keys, all(pks.slice(at, at + USERS_PER_ROUND)));
    return;
  }
  await run(db, setEmptyFragment, renderDimensionFragment(keys, [], 0), tenantId);
  await run(db, stampRecords, tenantId, stamp);
  for (let after = 0; ; ) {
    const pks = (await rowsOf(db, usersAfter, tenantId, after, USERS_PER_ROUND)).map((row) => row.pk);
    if (pks.length === 0) return;
    await render(db, tenantId, -stamp, keys, all(pks));
    after = pks[pks.length - 1]!;
  }
}

/** The stored fields of every user of `userPks` in every month, and the group periods of each. */
export async function fieldsOfUsers(db: Queryable, tenantId: number, userPks: number[]): Promise<StoredFields> {
  return fieldsWithin(db, tenantId, [userPks, userPks.map(() => LOWEST), userPks.map(() => HIGHEST)]);
}

interface StoredFields {
  stored: { user_pk: number; month: number; fragment: string }[];
  periodsOf: Map<number, GroupPeriod[]>;
}

async function fieldsWithin(db: Queryable, tenantId: number, bounds: Bounds): Promise<StoredFields> {
  const stored = await rowsOf(db, storedFragments, tenantId, ...bounds);
  const periodsOf = new Map<number, GroupPeriod[]>();
  if (stored.length === 0) return { stored, periodsOf };
  for (const period of await rowsOf(db, periodsOfUsers, tenantId, ...bounds)) {
    const list = periodsOf.get(period.user_pk) ?? [];
    list.push(period);
    periodsOf.set(period.user_pk, list);
  }
  return { stored, periodsOf };
}

async function render(db: Queryable, tenantId: number, stamp: number, keys: readonly string[], bounds: Bounds): Promise<void> {
  const { stored, periodsOf } = await fieldsWithin(db, tenantId, bounds);
  if (stored.length === 0) return;
  const changed: [number[], number[], string[]] = [[], [], []];
  for (const { user_pk, month, fragment } of stored) {
    const rendered = renderDimensionFragment(keys, periodsOf.get(user_pk) ?? [], month);
    if (rendered === fragment) continue;
    changed[0].push(user_pk);
    changed[1].push(month);
    changed[2].push(rendered);
  }
  if (changed[0].length > 0) await run(db, updateFragments, tenantId, ...changed, stamp);
}
