import type { ManagerEdge } from '../../domain/bulkChecks.js';
import type { Period, PeriodWrite } from '../../domain/periods.js';
import type { Db } from './db.js';

/**
 * Prepared statements over the attribution tables, for the bulk upsert. Months are month
 * indexes; an open bound is passed as the smallest or largest safe integer.
 */

/** A stored attribution row: its primary key and its period (the payload stays in SQL). */
interface StoredPeriod extends Period {
  readonly pk: number;
}

/** A stored group attribution: its primary key, its period and its group. */
export interface StoredGroupPeriod extends StoredPeriod {
  readonly start: number;
  readonly groupPk: number;
}

/** A stored manager attribution, as the cycle check sees it. */
export interface StoredManagerEdge extends ManagerEdge {
  readonly pk: number;
}

const lowest = (month: number | null) => month ?? Number.MIN_SAFE_INTEGER;
const highest = (month: number | null) => month ?? Number.MAX_SAFE_INTEGER;

export function attributionStatements(db: Db) {
  const emailOfUser = db.prepare<[number], string>('SELECT email FROM users WHERE pk = ?').pluck();
  const groupByName = db.prepare<[number, string], number>('SELECT pk FROM groups WHERE dimension_pk = ? AND name = ?').pluck();
  const insertGroup = db.prepare<[number, string], number>('INSERT INTO groups (dimension_pk, name) VALUES (?, ?) RETURNING pk').pluck();
  const groupsOverlapping = db.prepare<[number, number, number, number], StoredGroupPeriod>(
    `SELECT pk, start_month AS start, end_month AS "end", group_pk AS groupPk FROM group_attributions
     WHERE user_pk = ? AND dimension_pk = ? AND start_month <= ? AND (end_month IS NULL OR end_month >= ?)`,
  );
  const insertGroupAttribution = db.prepare<[number, number, number, number | null, number | null]>(
    'INSERT INTO group_attributions (user_pk, dimension_pk, group_pk, start_month, end_month) VALUES (?, ?, ?, ?, ?)',
  );
  const managersOverlapping = db.prepare<[number, number, number], StoredManagerEdge>(
    `SELECT pk, user_pk AS user, manager_pk AS manager, start_month AS start, end_month AS "end"
     FROM manager_attributions
     WHERE user_pk = ? AND (start_month IS NULL OR start_month <= ?) AND (end_month IS NULL OR end_month >= ?)`,
  );
  const insertManagerAttribution = db.prepare<[number, number, number | null, number | null]>(
    'INSERT INTO manager_attributions (user_pk, manager_pk, start_month, end_month) VALUES (?, ?, ?, ?)',
  );
  const groupWrites = periodWriter(db, 'group_attributions', 'user_pk, dimension_pk, group_pk');
  const managerWrites = periodWriter(db, 'manager_attributions', 'user_pk, manager_pk');

  return {
    emailOfUser: (userPk: number) => emailOfUser.get(userPk)!,
    /** The group `name` of the dimension, created when it is not known yet. */
    groupPk(dimensionPk: number, name: string): number {
      return groupByName.get(dimensionPk, name) ?? insertGroup.get(dimensionPk, name)!;
    },
    groupsOverlapping: (userPk: number, dimensionPk: number, period: Period) =>
      groupsOverlapping.all(userPk, dimensionPk, highest(period.end), lowest(period.start)),
    insertGroupAttribution(userPk: number, dimensionPk: number, groupPk: number, period: Period): void {
      insertGroupAttribution.run(userPk, dimensionPk, groupPk, period.start, period.end);
    },
    writeGroupPeriods: groupWrites,
    /** The manager attributions of `userPk` that share a month with `period`. */
    managersOverlapping: (userPk: number, period: Period) =>
      managersOverlapping.all(userPk, highest(period.end), lowest(period.start)),
    insertManagerAttribution(userPk: number, managerPk: number, period: Period): void {
      insertManagerAttribution.run(userPk, managerPk, period.start, period.end);
    },
    writeManagerPeriods: managerWrites,
  };
}

export type AttributionStatements = ReturnType<typeof attributionStatements>;

/**
 * Carries out the writes of an override (see `overrideWrites`) on one attribution table: an
 * inserted piece copies the payload columns of the row it was cut from.
 */
function periodWriter(db: Db, table: string, payloadColumns: string) {
  const remove = db.prepare<[number]>(`DELETE FROM ${table} WHERE pk = ?`);
  const update = db.prepare<[number | null, number | null, number]>(`UPDATE ${table} SET start_month = ?, end_month = ? WHERE pk = ?`);
  const insertCopy = db.prepare<[number | null, number | null, number]>(
    `INSERT INTO ${table} (${payloadColumns}, start_month, end_month)
     SELECT ${payloadColumns}, ?, ? FROM ${table} WHERE pk = ?`,
  );
  return (writes: readonly PeriodWrite<StoredPeriod>[]): void => {
    for (const write of writes) {
      if (write.kind === 'delete') remove.run(write.row.pk);
      else if (write.kind === 'update') update.run(write.period.start, write.period.end, write.row.pk);
      else insertCopy.run(write.period.start, write.period.end, write.copyOf.pk);
    }
  };
}
