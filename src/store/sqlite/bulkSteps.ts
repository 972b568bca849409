import type { ManagerEdge } from '../../domain/bulkChecks.js';
import { groupSlot, managerSlot, rewritesInPlace, type SlotRow, type SlotWrites } from '../../domain/bulkPlan.js';
import type { UserRef } from '../../domain/userRef.js';
import { periodIntersection, type Period } from '../../domain/periods.js';
import type { AttributionSteps, Columns } from '../engine/commonWriteSteps.js';
import type { BulkSteps } from '../engine/apiWriteSteps.js';
import { changeStamps } from './changeStamps.js';
import type { Db } from './db.js';
import { fragmentStatements } from './dimensionValues.js';
import type { Lookups, WriterCache } from './writerCache.js';

/** A stored group attribution's key (migration 27): its user, dimension and start month. */
type GroupKey = readonly [userPk: number, dimensionPk: number, start: number];

/**
 * The steps of the bulk upsert (../writes/attributionBulk.ts) on SQLite: each takes every row the request
 * needs and runs a prepared statement per row. SQLite is in this process, so a statement costs
 * its B-tree seeks and no round trip. A stored group attribution's key is its user, dimension
 * and start month, a manager attribution's its primary key. Users, groups and manager
 * attributions are read through the writer's cache (writerCache.ts).
 */
export function bulkSteps(db: Db, cache: WriterCache): (tenantId: number) => BulkSteps<GroupKey, number> {
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
export function attributionSteps(db: Db, lookups: Lookups): (tenantId: number) => AttributionSteps<GroupKey, number> {
  const emailOfUser = db.prepare<[number], string>('SELECT email FROM users WHERE pk = ?').pluck();
  const groupByName = db.prepare<[number, string], number>('SELECT pk FROM groups WHERE dimension_pk = ? AND name = ?').pluck();
  const insertGroup = db.prepare<[number, string], number>('INSERT INTO groups (dimension_pk, name) VALUES (?, ?) RETURNING pk').pluck();
  const groupsOverlapping = db
    .prepare<[number, number, number, number], [start: number, end: number | null, groupPk: number]>(
      `SELECT start_month, end_month, group_pk FROM group_attributions
       WHERE user_pk = ? AND dimension_pk = ? AND start_month <= ? AND (end_month IS NULL OR end_month >= ?)`,
    )
    .raw();
  const fragments = fragmentStatements(db);
  const groupWrites = groupWriter(db);
  const managerWrites = tableWriter<number>(db, 'manager_attributions', 'pk = ?', ['user_pk', 'manager_pk']);
  const groupPk = (dimensionPk: number, name: string) => groupByName.get(dimensionPk, name) ?? insertGroup.get(dimensionPk, name)!;

  return (tenantId) => ({
    emails: (userPks) => new Map(userPks.map((pk) => [pk, emailOfUser.get(pk)!])),
    groupPks: (wanted) => wanted.map(([dimensionPk, name]) => lookups.group(dimensionPk, name, () => groupPk(dimensionPk, name))),
    storedGroups(wanted) {
      // A stored row shares months with two items of its slot: found twice, kept once (by slot and start).
      const found = new Map<string, SlotRow<Columns, GroupKey>>();
      for (const { userPk, dimensionPk, period } of wanted) {
        const slot = groupSlot(userPk, dimensionPk);
        for (const [start, end, groupPk] of groupsOverlapping.all(userPk, dimensionPk, period.end ?? Number.MAX_SAFE_INTEGER, period.start ?? Number.MIN_SAFE_INTEGER)) {
          found.set(`${slot}:${start}`, { key: [userPk, dimensionPk, start], slot, payload: [userPk, dimensionPk, groupPk], start, end });
        }
      }
      return [...found.values()];
    },
    storedManagers(wanted) {
      const found = new Map<number, SlotRow<Columns, number>>();
      for (const { userPk, period } of wanted) {
        for (const row of lookups.managersOverlapping(userPk, period)) {
          found.set(row.pk, { key: row.pk, slot: managerSlot(userPk), payload: [userPk, row.manager], start: row.start, end: row.end });
        }
      }
      return [...found.values()];
    },
    writeGroups: groupWrites,
    writeManagers(writes) {
      managerWrites(writes);
      lookups.managersChanged(new Set(writes.inserts.map((row) => row.payload[0]!)));
    },
    dimensionKeys: () => fragments.dimensionKeys(tenantId),
  });
}

const GROUP_KEY = 'user_pk = ? AND dimension_pk = ? AND start_month = ?';

/**
 * Carries out {@link SlotWrites} on group attributions as {@link tableWriter} does, each insert at
 * the key of a row it deletes rewriting that row's group and end in place ({@link rewritesInPlace}).
 */
function groupWriter(db: Db): (writes: SlotWrites<Columns, GroupKey>) => void {
  const write = tableWriter<GroupKey>(db, 'group_attributions', GROUP_KEY, ['user_pk', 'dimension_pk', 'group_pk']);
  const rewrite = db.prepare<[groupPk: number, end: number | null, ...GroupKey]>(`UPDATE group_attributions SET group_pk = ?, end_month = ? WHERE ${GROUP_KEY}`);
  return (planned) => {
    const { writes, rewrites } = rewritesInPlace(
      planned,
      (key) => key.join(':'),
      ({ payload, start }) => (start === null ? undefined : `${payload[0]}:${payload[1]}:${start}`),
    );
    write(writes);
    for (const { payload, start, end } of rewrites) rewrite.run(payload[2]!, end, payload[0]!, payload[1]!, start!);
  };
}

/**
 * Carries out {@link SlotWrites} on one attribution table, finding a row by its key (`K`, bound
 * to the `?` of `keyWhere`). Deletes run first, then updates, then inserts: an update only
 * narrows its row (so its new start is in no other row), and what is inserted overlaps no row
 * left, so no step meets a key still in use.
 */
function tableWriter<K extends number | readonly number[]>(db: Db, table: string, keyWhere: string, payloadColumns: readonly string[]) {
  const columns = [...payloadColumns, 'start_month', 'end_month'];
  const remove = db.prepare<[K]>(`DELETE FROM ${table} WHERE ${keyWhere}`);
  const update = db.prepare<[number | null, number | null, K]>(`UPDATE ${table} SET start_month = ?, end_month = ? WHERE ${keyWhere}`);
  const insert = db.prepare<(number | null)[]>(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
  return (writes: SlotWrites<Columns, K>): void => {
    for (const key of writes.deletes) remove.run(key);
    for (const { key, period } of writes.updates) update.run(period.start, period.end, key);
    for (const row of writes.inserts) insert.run(...row.payload, row.start, row.end);
  };
}
