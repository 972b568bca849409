import type { ManagerEdge } from '../../domain/bulkChecks.js';
import { groupSlot, managerSlot, type SlotWrites } from '../../domain/bulkPlan.js';
import type { UserRef } from '../../domain/userRef.js';
import { periodIntersection, type Period } from '../../domain/periods.js';
import type { AttributionSteps, Columns } from '../engine/commonWriteSteps.js';
import type { BulkSteps } from '../engine/apiWriteSteps.js';
import { changeStamps } from './changeStamps.js';
import type { Db } from './db.js';
import { fragmentStatements } from './dimensionValues.js';
import type { Lookups, WriterCache } from './writerCache.js';

/**
 * The steps of the bulk upsert (../writes/attributionBulk.ts) on SQLite: each takes every row the request
 * needs and runs a prepared statement per row. SQLite is in this process, so a statement costs
 * its B-tree seeks and no round trip. A stored attribution's key is its primary key. Users,
 * groups and manager attributions are read through the writer's cache (writerCache.ts).
 */
export function bulkSteps(db: Db, cache: WriterCache): (tenantId: number) => BulkSteps<number> {
  const dimensions = db.prepare<[number], [string, number]>('SELECT key, pk FROM dimensions WHERE tenant_id = ?').raw();
  const bumpDataVersion = db.prepare<[number]>('UPDATE tenants SET data_version = random() WHERE id = ?');
  const fragments = fragmentStatements(db);
  const stamps = changeStamps(db);
  const attributions = attributionSteps(db, cache);

  return (tenantId) => ({
    ...attributions(tenantId),
    users(sent) {
      const found = new Map<string, UserRef>();
      for (const email of sent) {
        const user = cache.user(tenantId, email);
        if (user) found.set(email, user);
      }
      return found;
    },
    dimensions: () => new Map(dimensions.all(tenantId)),
    reachableManagers(edges) {
      const found = new Map<number, ManagerEdge>();
      const walked = new Set<string>();
      const pending: [number, Period][] = edges.map((edge) => [edge.manager, edge]);
      while (pending.length > 0) {
        const [user, months] = pending.pop()!;
        const step = `${user}:${months.start}:${months.end}`;
        if (walked.has(step)) continue;
        walked.add(step);
        for (const edge of cache.managersOverlapping(user, months)) {
          found.set(edge.pk, edge);
          pending.push([edge.manager, periodIntersection(months, edge)!]);
        }
      }
      return [...found.values()];
    },
    fragments: (months) =>
      [...months].flatMap(([userPk, period]) => fragments.fragments(userPk, period).map(([month, fragment]) => ({ userPk, month, fragment }))),
    updateFragments(changed) {
      const stamp = stamps.next(tenantId);
      fragments.setFragments(tenantId, changed, stamp);
    },
    dataChanged: () => void bumpDataVersion.run(tenantId),
  });
}

/** The attribution steps of the bulk upsert and of a load, finding users, groups and managers through `lookups`. */
export function attributionSteps(db: Db, lookups: Lookups): (tenantId: number) => AttributionSteps<number> {
  const emailOfUser = db.prepare<[number], string>('SELECT email FROM users WHERE pk = ?').pluck();
  const groupByName = db.prepare<[number, string], number>('SELECT pk FROM groups WHERE dimension_pk = ? AND name = ?').pluck();
  const insertGroup = db.prepare<[number, string], number>('INSERT INTO groups (dimension_pk, name) VALUES (?, ?) RETURNING pk').pluck();
  const groupsOverlapping = db.prepare<[number, number, number, number], { pk: number; start: number; end: number | null; groupPk: number }>(
    `SELECT pk, start_month AS start, end_month AS "end", group_pk AS groupPk FROM group_attributions
     WHERE user_pk = ? AND dimension_pk = ? AND start_month <= ? AND (end_month IS NULL OR end_month >= ?)`,
  );
  const fragments = fragmentStatements(db);
  const groupWrites = tableWriter(db, 'group_attributions', ['user_pk', 'dimension_pk', 'group_pk']);
  const managerWrites = tableWriter(db, 'manager_attributions', ['user_pk', 'manager_pk']);
  const groupPk = (dimensionPk: number, name: string) => groupByName.get(dimensionPk, name) ?? insertGroup.get(dimensionPk, name)!;

  return (tenantId) => ({
    emails: (userPks) => new Map(userPks.map((pk) => [pk, emailOfUser.get(pk)!])),
    groupPks: (wanted) => wanted.map(([dimensionPk, name]) => lookups.group(dimensionPk, name, () => groupPk(dimensionPk, name))),
    storedGroups: (wanted) =>
      distinctRows(
        wanted.flatMap(({ userPk, dimensionPk, period }) =>
          groupsOverlapping.all(userPk, dimensionPk, period.end ?? Number.MAX_SAFE_INTEGER, period.start ?? Number.MIN_SAFE_INTEGER).map((row) => ({
            key: row.pk,
            slot: groupSlot(userPk, dimensionPk),
            payload: [userPk, dimensionPk, row.groupPk],
            start: row.start,
            end: row.end,
          })),
        ),
      ),
    storedManagers: (wanted) =>
      distinctRows(
        wanted.flatMap(({ userPk, period }) =>
          lookups.managersOverlapping(userPk, period).map((row) => ({
            key: row.pk,
            slot: managerSlot(userPk),
            payload: [userPk, row.manager],
            start: row.start,
            end: row.end,
          })),
        ),
      ),
    writeGroups: groupWrites,
    writeManagers(writes) {
      managerWrites(writes);
      lookups.managersChanged(new Set(writes.inserts.map((row) => row.payload[0]!)));
    },
    dimensionKeys: () => fragments.dimensionKeys(tenantId),
  });
}

/** `rows` without repeats of a stored row (a row sharing months with two items of its slot). */
function distinctRows<T extends { key: number }>(rows: readonly T[]): T[] {
  return [...new Map(rows.map((row) => [row.key, row])).values()];
}

/** Carries out {@link SlotWrites} on one attribution table: rows are found by primary key. */
function tableWriter(db: Db, table: string, payloadColumns: readonly string[]) {
  const columns = [...payloadColumns, 'start_month', 'end_month'];
  const remove = db.prepare<[number]>(`DELETE FROM ${table} WHERE pk = ?`);
  const update = db.prepare<[number | null, number | null, number]>(`UPDATE ${table} SET start_month = ?, end_month = ? WHERE pk = ?`);
  const insert = db.prepare<(number | null)[]>(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
  return (writes: SlotWrites<Columns, number>): void => {
    for (const pk of writes.deletes) remove.run(pk);
    for (const { key, period } of writes.updates) update.run(period.start, period.end, key);
    for (const row of writes.inserts) insert.run(...row.payload, row.start, row.end);
  };
}
