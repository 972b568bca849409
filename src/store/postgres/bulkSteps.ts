import type { ManagerEdge } from '../../domain/bulkChecks.js';
import { groupSlot, managerSlot, type SlotRow, type SlotWrites } from '../../domain/bulkPlan.js';
import type { UserRef } from '../../domain/userRef.js';
import { asciiLowerCase } from '../../domain/emailKey.js';
import type { Period } from '../../domain/periods.js';
import type { AttributionSteps, Columns } from '../engine/commonWriteSteps.js';
import type { BulkSteps } from '../engine/apiWriteSteps.js';
import { changeStamps } from './changeStamps.js';
import { rowsOf, run, statement, storable, type Queryable } from './connection.js';
import { newKey, tenantRows } from './tenantKeys.js';
import { bumpDataVersion, newDataVersion } from './dataVersion.js';

/** An open bound as a month the database compares with (months are 0..119999). */
const LOWEST = -2_147_483_648;
const HIGHEST = 2_147_483_647;
const bounds = (periods: readonly Period[]): [number[], number[]] => [periods.map((p) => p.start ?? LOWEST), periods.map((p) => p.end ?? HIGHEST)];

type Months = { pk: number; start: number | null; end: number | null };

const usersByEmailKey = statement<[number, string[]], { pk: number; email: string; email_key: string; archived_after: number | null }>(
  'SELECT pk, email, email_key, archived_after FROM users WHERE tenant_id = $1 AND email_key = ANY ($2)',
);
const dimensions = statement<[number], { key: string; pk: number }>('SELECT key, pk FROM dimensions WHERE tenant_id = $1 ORDER BY position');
const groupsOverlapping = statement<[number, number[], number[], number[], number[]], Months & { user_pk: number; dimension_pk: number; group_pk: number }>(
  `SELECT DISTINCT ON (a.pk) a.pk, a.user_pk, a.dimension_pk, a.group_pk, a.start_month AS start, a.end_month AS "end"
   FROM unnest($2::bigint[], $3::bigint[], $4::integer[], $5::integer[]) AS w (user_pk, dimension_pk, first, last)
   JOIN group_attributions a ON a.tenant_id = $1 AND a.user_pk = w.user_pk AND a.dimension_pk = w.dimension_pk
     AND a.start_month <= w.last AND (a.end_month IS NULL OR a.end_month >= w.first)`,
);
const managersOverlapping = statement<[number, number[], number[], number[]], Months & { user_pk: number; manager_pk: number }>(
  `SELECT a.pk, a.user_pk, a.manager_pk, a.start_month AS start, a.end_month AS "end"
   FROM unnest($2::bigint[], $3::integer[], $4::integer[]) AS w (user_pk, first, last)
   JOIN manager_attributions a ON a.tenant_id = $1 AND a.user_pk = w.user_pk
     AND (a.start_month IS NULL OR a.start_month <= w.last) AND (a.end_month IS NULL OR a.end_month >= w.first)`,
);
/**
 * The stored manager attributions reachable upwards from each (user, first, last): those of the
 * user sharing a month with its months, then those of each one's manager over the months both
 * share, and so on. A (user, months) is walked once (UNION), so the walk ends.
 */
const managersReachable = statement<[number, number[], number[], number[]], Months & { user_pk: number; manager_pk: number }>(
  `WITH RECURSIVE walk (user_pk, first, last) AS (
     SELECT * FROM unnest($2::bigint[], $3::integer[], $4::integer[])
     UNION
     SELECT a.manager_pk, greatest(w.first, coalesce(a.start_month, ${LOWEST})), least(w.last, coalesce(a.end_month, ${HIGHEST}))
     FROM walk w JOIN manager_attributions a ON a.tenant_id = $1 AND a.user_pk = w.user_pk
       AND (a.start_month IS NULL OR a.start_month <= w.last) AND (a.end_month IS NULL OR a.end_month >= w.first))
   SELECT DISTINCT a.pk, a.user_pk, a.manager_pk, a.start_month AS start, a.end_month AS "end"
   FROM walk w JOIN manager_attributions a ON a.tenant_id = $1 AND a.user_pk = w.user_pk
     AND (a.start_month IS NULL OR a.start_month <= w.last) AND (a.end_month IS NULL OR a.end_month >= w.first)
   ORDER BY a.pk`,
);
const fragments = statement<[number, number[], number[], number[]], { user_pk: number; month: number; fragment: string }>(
  `SELECT v.user_pk, v.month, v.fragment
   FROM unnest($2::bigint[], $3::integer[], $4::integer[]) AS w (user_pk, first, last)
   JOIN dimension_values v ON v.tenant_id = $1 AND v.user_pk = w.user_pk AND v.month BETWEEN w.first AND w.last`,
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
 * The statements of one attribution table: the deletes (keys `$2`) and the updates of months
 * (keys `$3`, months `$4`, `$5`) in one, each on its own rows; the inserts (the payload
 * `columns`, then months) in another (Citus runs an INSERT ... SELECT beside a modifying CTE in
 * steps). A new row's key is drawn from the rows before the statement (tenantKeys.ts).
 */
const slotStatementsOf = (table: string, columns: readonly string[]) => ({
  width: columns.length,
  removeAndMove: statement<[number, number[], number[], (number | null)[], (number | null)[]]>(
    `WITH removed AS (DELETE FROM ${table} WHERE tenant_id = $1 AND pk = ANY ($2))
     UPDATE ${table} a SET start_month = c.start_month, end_month = c.end_month
     FROM unnest($3::bigint[], $4::integer[], $5::integer[]) AS c (pk, start_month, end_month)
     WHERE a.tenant_id = $1 AND a.pk = c.pk`,
  ),
  insert: statement<[number, ...unknown[][]]>(
    `INSERT INTO ${table} (tenant_id, pk, ${columns.join(', ')}, start_month, end_month)
     SELECT s.tenant_id, ${newKey(table, 'a.n')}, ${columns.map((name) => `a.${name}`).join(', ')}, a.start_month, a.end_month
     FROM ${tenantRows(`unnest(${columns.map((_, i) => `$${2 + i}::bigint[]`).join(', ')}, $${2 + columns.length}::integer[], $${3 + columns.length}::integer[]) WITH ORDINALITY AS a (${columns.join(', ')}, start_month, end_month, n)`)}`,
  ),
});
const groupWrites = slotStatementsOf('group_attributions', ['user_pk', 'dimension_pk', 'group_pk']);
const managerWrites = slotStatementsOf('manager_attributions', ['user_pk', 'manager_pk']);

/**
 * The changed dimension fields, stamped with the request's change (`$5`) and its time (`$6`,
 * changeStamps.ts), and the tenant's data a new version (`$7`): one statement.
 */
const stampedFragments = statement<[number, number[], number[], string[], number, string, number]>(
  `WITH versioned AS (UPDATE tenant_state SET data_version = $7 WHERE tenant_id = $1)
   UPDATE dimension_values v SET fragment = c.fragment, stamp = $5, changed_at = $6
   FROM unnest($2::bigint[], $3::integer[], $4::text[]) AS c (user_pk, month, fragment)
   WHERE v.tenant_id = $1 AND v.user_pk = c.user_pk AND v.month = c.month`,
);

/**
 * The steps of the bulk upsert (../writes/attributionBulk.ts) on PostgreSQL, for one tenant inside its
 * write transaction: each step is one statement over arrays of the request's values (`unnest`),
 * so a request costs about fifteen round trips whatever its size. Statements that write are
 * joined only where Citus still runs the whole as one task on the tenant's node (a modifying CTE
 * beside an UPDATE; not beside an INSERT ... SELECT). A stored attribution's key is its primary key.
 */
export function bulkSteps(db: Queryable, tenantId: number): BulkSteps<number> {
  let versioned = false; // the data's new version written with the dimension fields
  let keys: string[] | undefined; // the dimensions, read once: the tenant's write lock keeps them
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
      const rows = await rowsOf(db, managersReachable, tenantId, edges.map((edge) => edge.manager), ...bounds(edges));
      return rows.map((row): ManagerEdge => ({ user: row.user_pk, manager: row.manager_pk, start: row.start, end: row.end }));
    },
    async fragments(months) {
      const entries = [...months];
      const rows = await rowsOf(db, fragments, tenantId, entries.map(([pk]) => pk), ...bounds(entries.map(([, period]) => period)));
      return rows.map((row) => ({ userPk: row.user_pk, month: row.month, fragment: row.fragment }));
    },
    async updateFragments(changed) {
      const { stamp, at } = await changeStamps(db).next(tenantId);
      await run(db, stampedFragments, tenantId, changed.map((c) => c.userPk), changed.map((c) => c.month), changed.map((c) => c.fragment), stamp, at, newDataVersion());
      versioned = true;
    },
    dataChanged: async () => {
      if (!versioned) await bumpDataVersion(db, tenantId);
    },
  };
}

/** The attribution steps of the bulk upsert and of a load: each one statement over arrays. */
export function attributionSteps(db: Queryable, tenantId: number): AttributionSteps<number> {
  return {
    emails: async (userPks) => new Map((await rowsOf(db, emailsOfUsers, tenantId, [...userPks])).map((row) => [row.pk, row.email])),
    async groupPks(wanted) {
      const [dimensionPks, names] = [wanted.map(([pk]) => pk), wanted.map(([, name]) => name)];
      await run(db, insertGroups, tenantId, dimensionPks, names);
      const found = new Map((await rowsOf(db, groupsByName, tenantId, dimensionPks, names)).map((row) => [`${row.dimension_pk}:${row.name}`, row.pk]));
      return wanted.map(([pk, name]) => found.get(`${pk}:${name}`)!);
    },
    async storedGroups(wanted) {
      const rows = await rowsOf(db, groupsOverlapping, tenantId, wanted.map((x) => x.userPk), wanted.map((x) => x.dimensionPk), ...bounds(wanted.map((x) => x.period)));
      return rows.map((row): SlotRow<Columns, number> => ({
        key: row.pk,
        slot: groupSlot(row.user_pk, row.dimension_pk),
        payload: [row.user_pk, row.dimension_pk, row.group_pk],
        start: row.start,
        end: row.end,
      }));
    },
    async storedManagers(wanted) {
      const rows = await rowsOf(db, managersOverlapping, tenantId, wanted.map((x) => x.userPk), ...bounds(wanted.map((x) => x.period)));
      const distinct = new Map(rows.map((row) => [row.pk, row]));
      return [...distinct.values()].map((row): SlotRow<Columns, number> => ({
        key: row.pk,
        slot: managerSlot(row.user_pk),
        payload: [row.user_pk, row.manager_pk],
        start: row.start,
        end: row.end,
      }));
    },
    writeGroups: (writes) => writeSlots(db, tenantId, writes, groupWrites),
    writeManagers: (writes) => writeSlots(db, tenantId, writes, managerWrites),
    dimensionKeys: async () => (await rowsOf(db, dimensionKeys, tenantId)).map((row) => row.key),
  };
}

/** Carries out {@link SlotWrites} on one attribution table in at most two statements. */
async function writeSlots(db: Queryable, tenantId: number, writes: SlotWrites<Columns, number>, table: typeof groupWrites): Promise<void> {
  const { deletes, updates, inserts } = writes;
  if (deletes.length + updates.length > 0) {
    await run(db, table.removeAndMove, tenantId, [...deletes], updates.map((u) => u.key), updates.map((u) => u.period.start), updates.map((u) => u.period.end));
  }
  if (inserts.length === 0) return;
  const payloadColumns = Array.from({ length: table.width }, (_, i) => inserts.map((row) => row.payload[i]!));
  await run(db, table.insert, tenantId, ...payloadColumns, inserts.map((row) => row.start), inserts.map((row) => row.end));
}
