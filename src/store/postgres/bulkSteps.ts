import type { ManagerEdge } from '../../domain/bulkChecks.js';
import { groupSlot, managerSlot, type SlotRow, type SlotWrites, type UserRef } from '../../domain/bulkPlan.js';
import { asciiLowerCase } from '../../domain/emailKey.js';
import { periodIntersection, type Period } from '../../domain/periods.js';
import type { BulkSteps, Columns } from '../bulkUpsert.js';
import { NEXT_STAMP_CTE } from './changeStamps.js';
import { rowsOf, run, statement, storable, type Queryable } from './connection.js';
import { tenantStatements as tenants } from './tenantStatements.js';
import { writerStatements as w } from './writerStatements.js';

/** An open bound as a month the database compares with (months are 0..119999). */
const LOWEST = -2_147_483_648;
const HIGHEST = 2_147_483_647;
const bounds = (periods: readonly Period[]): [number[], number[]] => [periods.map((p) => p.start ?? LOWEST), periods.map((p) => p.end ?? HIGHEST)];

type Months = { pk: number; start: number | null; end: number | null };

const usersByEmailKey = statement<[number, string[]], { pk: number; email: string; email_key: string }>(
  'SELECT pk, email, email_key FROM users WHERE tenant_id = $1 AND email_key = ANY ($2)',
);
const dimensions = statement<[number], { key: string; pk: number }>('SELECT key, pk FROM dimensions WHERE tenant_id = $1');
const groupsOverlapping = statement<[number, number[], number[], number[], number[]], Months & { user_pk: number; dimension_pk: number; group_pk: number }>(
  `SELECT DISTINCT ON (a.pk) a.pk, a.user_pk, a.dimension_pk, a.group_pk, a.start_month AS start, a.end_month AS "end"
   FROM unnest($2::bigint[], $3::bigint[], $4::integer[], $5::integer[]) AS w (user_pk, dimension_pk, first, last)
   JOIN group_attributions a ON a.tenant_id = $1 AND a.user_pk = w.user_pk AND a.dimension_pk = w.dimension_pk
     AND a.start_month <= w.last AND (a.end_month IS NULL OR a.end_month >= w.first)`,
);
const managersOverlapping = statement<[number, number[], number[], number[]], Months & { user_pk: number; manager_pk: number; from_user: number; first: number; last: number }>(
  `SELECT a.pk, a.user_pk, a.manager_pk, a.start_month AS start, a.end_month AS "end", w.user_pk AS from_user, w.first, w.last
   FROM unnest($2::bigint[], $3::integer[], $4::integer[]) AS w (user_pk, first, last)
   JOIN manager_attributions a ON a.tenant_id = $1 AND a.user_pk = w.user_pk
     AND (a.start_month IS NULL OR a.start_month <= w.last) AND (a.end_month IS NULL OR a.end_month >= w.first)`,
);
const fragments = statement<[number, number[], number[], number[]], { user_pk: number; month: number; fragment: string }>(
  `SELECT v.user_pk, v.month, v.fragment
   FROM unnest($2::bigint[], $3::integer[], $4::integer[]) AS w (user_pk, first, last)
   JOIN dimension_values v ON v.tenant_id = $1 AND v.user_pk = w.user_pk AND v.month BETWEEN w.first AND w.last`,
);
/** The changed dimension fields, stamped with the request's change (changeStamps.ts) in the same statement. */
const updateFragments = statement<[number, number[], number[], string[]]>(
  `WITH ${NEXT_STAMP_CTE}
   UPDATE dimension_values v SET fragment = c.fragment, stamp = (SELECT sync_seq FROM next_stamp)
   FROM unnest($2::bigint[], $3::integer[], $4::text[]) AS c (user_pk, month, fragment)
   WHERE v.tenant_id = $1 AND v.user_pk = c.user_pk AND v.month = c.month`,
);

/**
 * The steps of the bulk upsert (../bulkUpsert.ts) on PostgreSQL, for one tenant inside its
 * write transaction: each step is one statement over arrays of the request's values (`unnest`),
 * so a request costs about ten round trips whatever its size. A stored attribution's key is its
 * primary key.
 */
export function bulkSteps(db: Queryable, tenantId: number): BulkSteps<number> {
  return {
    async users(sent) {
      const keys = sent.filter(storable).map(asciiLowerCase);
      const byKey = new Map((await rowsOf(db, usersByEmailKey, tenantId, keys)).map((row) => [row.email_key, { pk: row.pk, email: row.email }]));
      const found = new Map<string, UserRef>();
      for (const email of sent) {
        const user = byKey.get(asciiLowerCase(email));
        if (user) found.set(email, user);
      }
      return found;
    },
    dimensions: async () => new Map((await rowsOf(db, dimensions, tenantId)).map((row) => [row.key, row.pk])),
    emails: async (userPks) => new Map((await rowsOf(db, w.emailsOfUsers, tenantId, [...userPks])).map((row) => [row.pk, row.email])),
    groupPks: (wanted) => groupPks(db, tenantId, wanted),
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
    /** Walks up from the new edges' managers a level at a time: one statement per level. */
    async reachableManagers(edges) {
      const found = new Map<number, ManagerEdge>();
      const walked = new Set<string>();
      let pending: [number, Period][] = edges.map((edge) => [edge.manager, edge]);
      while (pending.length > 0) {
        const level = pending.filter(([user, months]) => {
          const step = `${user}:${months.start}:${months.end}`;
          return !walked.has(step) && walked.add(step);
        });
        pending = [];
        if (level.length === 0) break;
        const rows = await rowsOf(db, managersOverlapping, tenantId, level.map(([user]) => user), ...bounds(level.map(([, months]) => months)));
        for (const row of rows) {
          const edge: ManagerEdge = { user: row.user_pk, manager: row.manager_pk, start: row.start, end: row.end };
          found.set(row.pk, edge);
          const walkedMonths: Period = { start: row.first === LOWEST ? null : row.first, end: row.last === HIGHEST ? null : row.last };
          pending.push([row.manager_pk, periodIntersection(walkedMonths, edge)!]);
        }
      }
      return [...found.values()];
    },
    writeGroups: (writes) => writeSlots(db, tenantId, writes, { remove: w.deleteGroupRows, update: w.updateGroupRows, insert: w.insertGroupRows }),
    writeManagers: (writes) => writeSlots(db, tenantId, writes, { remove: w.deleteManagerRows, update: w.updateManagerRows, insert: w.insertManagerRows }),
    dimensionKeys: async () => (await rowsOf(db, w.dimensions, tenantId)).map((row) => row.key),
    async fragments(months) {
      const entries = [...months];
      const rows = await rowsOf(db, fragments, tenantId, entries.map(([pk]) => pk), ...bounds(entries.map(([, period]) => period)));
      return rows.map((row) => ({ userPk: row.user_pk, month: row.month, fragment: row.fragment }));
    },
    async updateFragments(changed) {
      await run(db, updateFragments, tenantId, changed.map((c) => c.userPk), changed.map((c) => c.month), changed.map((c) => c.fragment));
    },
    dataChanged: () => tenants.dataChanged(db, tenantId),
  };
}

/** The key of each group (dimension, name), in order; groups not known yet are created. */
export async function groupPks(db: Queryable, tenantId: number, wanted: readonly (readonly [number, string])[]): Promise<number[]> {
  const [dimensionPks, names] = [wanted.map(([pk]) => pk), wanted.map(([, name]) => name)];
  await run(db, w.insertGroups, tenantId, dimensionPks, names);
  const found = new Map((await rowsOf(db, w.groupsByName, tenantId, dimensionPks, names)).map((row) => [`${row.dimension_pk}:${row.name}`, row.pk]));
  return wanted.map(([pk, name]) => found.get(`${pk}:${name}`)!);
}

/** The statements of one attribution table: a row's payload columns come before its months. */
export interface SlotStatements {
  remove: typeof w.deleteGroupRows;
  update: typeof w.updateGroupRows;
  insert: ReturnType<typeof statement<[number, ...unknown[][]]>>;
}

/** Carries out {@link SlotWrites} on one attribution table in at most three statements. */
export async function writeSlots(db: Queryable, tenantId: number, writes: SlotWrites<Columns, number>, s: SlotStatements): Promise<void> {
  if (writes.deletes.length > 0) await run(db, s.remove, tenantId, [...writes.deletes]);
  if (writes.updates.length > 0) {
    await run(db, s.update, tenantId, writes.updates.map((u) => u.key), writes.updates.map((u) => u.period.start), writes.updates.map((u) => u.period.end));
  }
  if (writes.inserts.length === 0) return;
  const width = writes.inserts[0]!.payload.length;
  const payloadColumns = Array.from({ length: width }, (_, i) => writes.inserts.map((row) => row.payload[i]!));
  await run(db, s.insert, tenantId, ...payloadColumns, writes.inserts.map((row) => row.start), writes.inserts.map((row) => row.end));
}
