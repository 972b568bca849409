import type { ManagerEdge } from '../../domain/bulkChecks.js';
import { groupSlot, managerSlot, type SlotRow, type UserMonthFragment } from '../../domain/bulkPlan.js';
import type { UserRef } from '../../domain/userRef.js';
import { asciiLowerCase } from '../../domain/emailKey.js';
import type { Period } from '../../domain/periods.js';
import type { AttributionSteps, Columns } from '../engine/commonWriteSteps.js';
import type { BulkSteps } from '../engine/apiWriteSteps.js';
import { changeStamps } from './changeStamps.js';
import { rowsOf, run, statement, storable, type Queryable } from './connection.js';
import { newKey, tenantRows } from './tenantKeys.js';
import { bumpDataVersion, newDataVersion } from './dataVersion.js';
import { finishBulk, groupWrites, insertSlots, managerWrites, writeSlots, type BulkEnd } from './attributionWrites.js';

/** An open bound as a month the database compares with (months are 0..119999). */
const LOWEST = -2_147_483_648;
const HIGHEST = 2_147_483_647;
const bounds = (periods: readonly Period[]): [number[], number[]] => [periods.map((p) => p.start ?? LOWEST), periods.map((p) => p.end ?? HIGHEST)];

type Months = { pk: number; start: number | null; end: number | null };

const usersByEmailKey = statement<[number, string[]], { pk: number; email: string; email_key: string; archived_after: number | null }>(
  'SELECT pk, email, email_key, archived_after FROM users WHERE tenant_id = $1 AND email_key = ANY ($2)',
);
const dimensions = statement<[number], { key: string; pk: number }>('SELECT key, pk FROM dimensions WHERE tenant_id = $1 ORDER BY position');
/** The stored group attributions sharing a month with each (user `$2`, dimension `$3`, months `$4` to `$5`), each once; `extra`: more columns. */
const groupsOverlappingOf = (extra = '') =>
  `SELECT DISTINCT ON (a.pk) a.pk, a.user_pk, a.dimension_pk, a.group_pk, a.start_month AS start, a.end_month AS "end"${extra}
   FROM unnest($2::bigint[], $3::bigint[], $4::integer[], $5::integer[]) AS w (user_pk, dimension_pk, first, last)
   JOIN group_attributions a ON a.tenant_id = $1 AND a.user_pk = w.user_pk AND a.dimension_pk = w.dimension_pk
     AND a.start_month <= w.last AND (a.end_month IS NULL OR a.end_month >= w.first)`;
/** The stored dimension fields of each (user `$u`, months `$u+1` to `$u+2`) (after a select list of `v`, the user-month rows). */
const fieldsOverMonths = (u: number) =>
  `FROM unnest($${u}::bigint[], $${u + 1}::integer[], $${u + 2}::integer[]) AS u (user_pk, first, last)
   JOIN dimension_values v ON v.tenant_id = $1 AND v.user_pk = u.user_pk AND v.month BETWEEN u.first AND u.last`;
type StoredGroupRow = Months & { user_pk: number; dimension_pk: number; group_pk: number };
const groupsOverlapping = statement<[number, number[], number[], number[], number[]], StoredGroupRow>(groupsOverlappingOf());
/**
 * {@link groupsOverlapping} and, in the same round trip, the stored dimension fields of each user
 * over the months of its items (`$6` to `$8`: a user, the first and last of the months): the
 * rows of the attributions carry no `month`, those of the fields no `pk`. The bulk upsert reads
 * both before it writes; its writes of attributions leave the fields as they are.
 */
const groupsAndFields = statement<
  [number, number[], number[], number[], number[], number[], number[], number[]],
  (StoredGroupRow & { month: null; fragment: null }) | { pk: null; user_pk: number; month: number; fragment: string }
>(
  `(${groupsOverlappingOf(', NULL::integer AS month, NULL::text AS fragment')})
   UNION ALL
   SELECT NULL, v.user_pk, NULL, NULL, NULL, NULL, v.month, v.fragment ${fieldsOverMonths(6)}`,
);
type StoredManagerRow = Months & { user_pk: number; manager_pk: number };
/** The stored manager attributions sharing a month with each (user `$u`, months `$u+1` to `$u+2`); `extra`: more columns. */
const managersOverlappingOf = (u: number, extra = '') =>
  `SELECT a.pk, a.user_pk, a.manager_pk, a.start_month AS start, a.end_month AS "end"${extra}
   FROM unnest($${u}::bigint[], $${u + 1}::integer[], $${u + 2}::integer[]) AS w (user_pk, first, last)
   JOIN manager_attributions a ON a.tenant_id = $1 AND a.user_pk = w.user_pk
     AND (a.start_month IS NULL OR a.start_month <= w.last) AND (a.end_month IS NULL OR a.end_month >= w.first)`;
const managersOverlapping = statement<[number, number[], number[], number[]], StoredManagerRow>(managersOverlappingOf(2));
/**
 * The stored manager attributions reachable upwards from each (user `$2`, first `$3`, last `$4`):
 * those of the user sharing a month with its months, then those of each one's manager over the
 * months both share, and so on. A (user, months) is walked once (UNION), so the walk ends. Then,
 * in the same round trip, {@link managersOverlapping} of each (user `$5`, months `$6` to `$7`):
 * the bulk upsert reads both before it writes (`reached` tells them apart).
 */
const managersReachableAndOverlapping = statement<[number, number[], number[], number[], number[], number[], number[]], StoredManagerRow & { reached: boolean }>(
  `WITH RECURSIVE walk (user_pk, first, last) AS (
     SELECT * FROM unnest($2::bigint[], $3::integer[], $4::integer[])
     UNION
     SELECT a.manager_pk, greatest(w.first, coalesce(a.start_month, ${LOWEST})), least(w.last, coalesce(a.end_month, ${HIGHEST}))
     FROM walk w JOIN manager_attributions a ON a.tenant_id = $1 AND a.user_pk = w.user_pk
       AND (a.start_month IS NULL OR a.start_month <= w.last) AND (a.end_month IS NULL OR a.end_month >= w.first))
   (SELECT DISTINCT a.pk, a.user_pk, a.manager_pk, a.start_month AS start, a.end_month AS "end", true AS reached
    FROM walk w JOIN manager_attributions a ON a.tenant_id = $1 AND a.user_pk = w.user_pk
      AND (a.start_month IS NULL OR a.start_month <= w.last) AND (a.end_month IS NULL OR a.end_month >= w.first))
   UNION ALL
   (${managersOverlappingOf(5, ', false')})
   ORDER BY pk`,
);
const fragments = statement<[number, number[], number[], number[]], { user_pk: number; month: number; fragment: string }>(
  `SELECT v.user_pk, v.month, v.fragment ${fieldsOverMonths(2)}`,
);
const dimensionKeys = statement<[number], { key: string }>('SELECT key FROM dimensions WHERE tenant_id = $1 ORDER BY position');
const emailsOfUsers = statement<[number, number[]], { pk: number; email: string }>('SELECT pk, email FROM users WHERE tenant_id = $1 AND pk = ANY ($2)');
const groupsByName = statement<[number, number[], string[]], { pk: number; dimension_pk: number; name: string }>(
  `SELECT g.pk, g.dimension_pk, g.name FROM unnest($2::bigint[], $3::text[]) AS w (dimension_pk, name)
   JOIN groups g ON g.tenant_id = $1 AND g.dimension_pk = w.dimension_pk AND g.name = w.name`,
);
const insertGroups = statement<[number, number[], string[]]>(
  `INSERT INTO groups (tenant_id, pk, dimension_pk, name)
   SELECT s.tenant_id, ${newKey('groups', 'g.n')}, g.dimension_pk, g.name FROM ${tenantRows('unnest($2::bigint[], $3::text[]) WITH ORDINALITY AS g (dimension_pk, name, n)')}
   ON CONFLICT DO NOTHING`,
);
/**
 * The steps of the bulk upsert (../writes/attributionBulk.ts) on PostgreSQL, for one tenant inside its
 * write transaction: each step is one statement over arrays of the request's values (`unnest`),
 * so a request costs a dozen round trips whatever its size. Statements are joined where Citus
 * still runs the whole as one task on the tenant's node: reads under `UNION ALL`, modifying CTEs
 * beside an UPDATE (not beside an INSERT ... SELECT). So the attributions' deletes and moves wait
 * for the last statement, with the fields and the data version (attributionWrites.ts `finishBulk`);
 * their inserts do not wait (no key of either table is unique but the row's own, drawn above every
 * stored one). A stored attribution's key is its primary key.
 */
export function bulkSteps(db: Queryable, tenantId: number): BulkSteps<number> {
  let left: Pick<BulkEnd, 'groups' | 'managers'> = { groups: NOTHING, managers: NOTHING }; // the deletes and moves the last statement makes
  let finished = false; // the last statement sent
  const finish = async (fields: BulkEnd['fields'], stamp: number, at: string) => {
    await finishBulk(db, tenantId, { ...left, fields, stamp, at, dataVersion: newDataVersion() });
    finished = true;
  };
  let keys: string[] | undefined; // the dimensions, read once: the tenant's write lock keeps them
  let managersRead: { edges: readonly ManagerEdge[]; rows: SlotRow<Columns, number>[] } | undefined; // read with the walk, over the new edges' users and months
  let fieldsRead: { hulls: Hulls; rows: UserMonthFragment[] } | undefined; // read with the stored groups, over these months of each user
  return {
    ...attributionSteps(db, tenantId),
    async users(sent) {
      const keys = sent.filter(storable).map(asciiLowerCase);
      const byKey = new Map((await rowsOf(db, usersByEmailKey, tenantId, keys)).map((row) => [row.email_key, { pk: row.pk, email: row.email, archivedAfter: row.archived_after }]));
      const found = new Map<string, UserRef>();
      for (const email of sent) {
        const user = byKey.get(asciiLowerCase(email));
        if (user) found.set(email, user);
      }
      return found;
    },
    async dimensions() {
      const rows = await rowsOf(db, dimensions, tenantId);
      keys = rows.map((row) => row.key);
      return new Map(rows.map((row) => [row.key, row.pk]));
    },
    dimensionKeys: async () => keys ?? (await rowsOf(db, dimensionKeys, tenantId)).map((row) => row.key),
    async reachableManagers(edges) {
      const rows = await rowsOf(db, managersReachableAndOverlapping, tenantId, edges.map((edge) => edge.manager), ...bounds(edges), edges.map((edge) => edge.user), ...bounds(edges));
      managersRead = { edges, rows: distinctManagers(rows.filter((row) => !row.reached)) };
      return rows.flatMap((row): ManagerEdge[] => (row.reached ? [{ user: row.user_pk, manager: row.manager_pk, start: row.start, end: row.end }] : []));
    },
    async storedManagers(wanted) {
      if (managersRead && sameUsersAndMonths(managersRead.edges, wanted)) return managersRead.rows;
      return distinctManagers(await rowsOf(db, managersOverlapping, tenantId, wanted.map((x) => x.userPk), ...bounds(wanted.map((x) => x.period))));
    },
    async storedGroups(wanted) {
      const hulls = hullsOf(wanted);
      const users = [...hulls.keys()];
      const rows = await rowsOf(db, groupsAndFields, tenantId, ...groupColumns(wanted), users, ...transposed(users.map((pk) => hulls.get(pk)!)));
      fieldsRead = { hulls, rows: rows.flatMap((row) => (row.pk === null ? [{ userPk: row.user_pk, month: row.month, fragment: row.fragment }] : [])) };
      return rows.flatMap((row) => (row.pk === null ? [] : [storedGroup(row)]));
    },
    async fragments(months) {
      if (fieldsRead && sameHulls(fieldsRead.hulls, months)) return fieldsRead.rows;
      const entries = [...months];
      const rows = await rowsOf(db, fragments, tenantId, entries.map(([pk]) => pk), ...bounds(entries.map(([, period]) => period)));
      return rows.map((row) => ({ userPk: row.user_pk, month: row.month, fragment: row.fragment }));
    },
    async writeGroups(writes) {
      left = { ...left, groups: writes };
      await insertSlots(db, tenantId, writes, groupWrites);
    },
    async writeManagers(writes) {
      left = { ...left, managers: writes };
      await insertSlots(db, tenantId, writes, managerWrites);
    },
    async updateFragments(changed) {
      const { stamp, at } = await changeStamps(db).next(tenantId);
      await finish(changed, stamp, at);
    },
    async dataChanged() {
      if (finished) return;
      const { groups, managers } = left;
      if (groups.deletes.length + groups.updates.length + managers.deletes.length + managers.updates.length > 0) await finish([], 0, '');
      else await bumpDataVersion(db, tenantId);
    },
  };
}

/** The attribution steps of the bulk upsert and of a load: each one statement over arrays (new groups: two more). */
export function attributionSteps(db: Queryable, tenantId: number): AttributionSteps<number> {
  /** The stored keys of these groups, by `dimension:name`. */
  const groupKeys = async (wanted: readonly (readonly [number, string])[]) =>
    new Map((await rowsOf(db, groupsByName, tenantId, wanted.map(([pk]) => pk), wanted.map(([, name]) => name))).map((row) => [`${row.dimension_pk}:${row.name}`, row.pk]));
  return {
    emails: async (userPks) => new Map((await rowsOf(db, emailsOfUsers, tenantId, [...userPks])).map((row) => [row.pk, row.email])),
    async groupPks(wanted) {
      const found = await groupKeys(wanted);
      const missing = wanted.filter(([pk, name]) => !found.has(`${pk}:${name}`));
      if (missing.length > 0) {
        await run(db, insertGroups, tenantId, missing.map(([pk]) => pk), missing.map(([, name]) => name));
        for (const [key, pk] of await groupKeys(missing)) found.set(key, pk);
      }
      return wanted.map(([pk, name]) => found.get(`${pk}:${name}`)!);
    },
    storedGroups: async (wanted) => (await rowsOf(db, groupsOverlapping, tenantId, ...groupColumns(wanted))).map(storedGroup),
    storedManagers: async (wanted) =>
      distinctManagers(await rowsOf(db, managersOverlapping, tenantId, wanted.map((x) => x.userPk), ...bounds(wanted.map((x) => x.period)))),
    writeGroups: (writes) => writeSlots(db, tenantId, writes, groupWrites),
    writeManagers: (writes) => writeSlots(db, tenantId, writes, managerWrites),
    dimensionKeys: async () => (await rowsOf(db, dimensionKeys, tenantId)).map((row) => row.key),
  };
}

/** No deletes and no moves. */
const NOTHING: BulkEnd['groups'] = { deletes: [], updates: [] };

type Wanted = Parameters<AttributionSteps<number>['storedGroups']>[0];
/** The arrays {@link groupsOverlapping} takes for `wanted`. */
const groupColumns = (wanted: Wanted) => [wanted.map((x) => x.userPk), wanted.map((x) => x.dimensionPk), ...bounds(wanted.map((x) => x.period))] as const;

const storedGroup = (row: StoredGroupRow): SlotRow<Columns, number> => ({
  key: row.pk,
  slot: groupSlot(row.user_pk, row.dimension_pk),
  payload: [row.user_pk, row.dimension_pk, row.group_pk],
  start: row.start,
  end: row.end,
});

/** Each stored manager attribution of `rows` once. */
function distinctManagers(rows: readonly StoredManagerRow[]): SlotRow<Columns, number>[] {
  return [...new Map(rows.map((row) => [row.pk, row])).values()].map((row) => ({
    key: row.pk,
    slot: managerSlot(row.user_pk),
    payload: [row.user_pk, row.manager_pk],
    start: row.start,
    end: row.end,
  }));
}

/** Whether `wanted` are the users and months of `edges`, one by one. */
const sameUsersAndMonths = (edges: readonly ManagerEdge[], wanted: readonly { userPk: number; period: Period }[]): boolean =>
  edges.length === wanted.length && wanted.every((x, i) => x.userPk === edges[i]!.user && x.period.start === edges[i]!.start && x.period.end === edges[i]!.end);

/** Per user, the first and last month (open bounds as {@link LOWEST} and {@link HIGHEST}). */
type Hulls = Map<number, readonly [number, number]>;

/** The months of each user's items, first to last: those whose fields the items may change (domain/bulkPlan.ts touchedMonths). */
function hullsOf(wanted: Wanted): Hulls {
  const hulls: Hulls = new Map();
  const [firsts, lasts] = bounds(wanted.map((x) => x.period));
  wanted.forEach(({ userPk }, i) => {
    const hull = hulls.get(userPk);
    hulls.set(userPk, hull ? [Math.min(hull[0], firsts[i]!), Math.max(hull[1], lasts[i]!)] : [firsts[i]!, lasts[i]!]);
  });
  return hulls;
}

/** Whether `months` are the months of `hulls`, user by user. */
function sameHulls(hulls: Hulls, months: ReadonlyMap<number, Period>): boolean {
  if (hulls.size !== months.size) return false;
  for (const [pk, period] of months) {
    const hull = hulls.get(pk);
    if (!hull || hull[0] !== (period.start ?? LOWEST) || hull[1] !== (period.end ?? HIGHEST)) return false;
  }
  return true;
}

/** Pairs as two arrays. */
const transposed = (pairs: readonly (readonly [number, number])[]): [number[], number[]] => [pairs.map((p) => p[0]), pairs.map((p) => p[1])];
