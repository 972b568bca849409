import type { UserMonthFragment } from '../../domain/bulkPlan.js';
import type { Period } from '../../domain/periods.js';
import type { GroupPeriod } from '../../domain/reportingJson.js';
import type { FieldSteps, UserGroupPeriod } from '../engine/loadSteps.js';
import { stampTime } from './changeStamps.js';
import type { Db } from './db.js';
import { stampAllRecords } from './recordTexts.js';

/** Every month. */
const ALL_MONTHS: Period = { start: null, end: null };

/** The statements behind the dimension fields of one user: its fields by month, its group periods. */
export function fragmentStatements(db: Db) {
  const dimensionKeys = db.prepare<[number], string>('SELECT key FROM dimensions WHERE tenant_id = ? ORDER BY position').pluck();
  const periodsOfUser = db.prepare<[number, number, number], GroupPeriod>(
    `SELECT d.key AS dimensionKey, g.name AS "group", a.start_month AS start, a.end_month AS "end"
     FROM group_attributions a
     JOIN groups g ON g.pk = a.group_pk
     JOIN dimensions d ON d.pk = a.dimension_pk
     WHERE a.user_pk = ? AND a.start_month <= ? AND (a.end_month IS NULL OR a.end_month >= ?)`,
  );
  const monthsOfUser = db
    .prepare<[number, number, number], [number, string]>('SELECT month, fragment FROM dimension_values WHERE user_pk = ? AND month BETWEEN ? AND ?')
    .raw();
  // A row made by this same transaction keeps minus its stamp (see migration 5). The stamp's
  // time is read once for all the rows a transaction changes (`at`).
  const stampAt = db.prepare<{ tenantId: number; stamp: number }, string | null>(`SELECT ${stampTime('@tenantId', '@stamp')}`).pluck();
  // Parameters by position: binding by name costs most of a microsecond more per row.
  // `made` is minus the stamp: the mark of a row made by this transaction.
  const update = db.prepare<[fragment: string, made: number, stamp: number, madeAgain: number, at: string | null, userPk: number, month: number]>(
    `UPDATE dimension_values SET fragment = ?, stamp = CASE stamp WHEN ? THEN stamp ELSE ? END,
       changed_at = CASE stamp WHEN ? THEN changed_at ELSE ? END
     WHERE user_pk = ? AND month = ?`,
  );
  return {
    /** The tenant's dimension keys, in the order of the record fields. */
    dimensionKeys: (tenantId: number) => dimensionKeys.all(tenantId),
    /** The stored dimension fields of `userPk` in the months of `months`, as [month, fields]. */
    fragments: (userPk: number, months: Period) => monthsOfUser.all(userPk, lowest(months.start), highest(months.end)),
    /** The group attributions of `userPk` that share a month with `months`. */
    periods: (userPk: number, months: Period) => periodsOfUser.all(userPk, highest(months.end), lowest(months.start)),
    /** Writes the changed dimension fields of the tenant's users under `stamp`. */
    setFragments(tenantId: number, changed: readonly UserMonthFragment[], stamp: number): void {
      if (changed.length === 0) return;
      const at = stampAt.get({ tenantId, stamp }) ?? null;
      for (const { userPk, month, fragment } of changed) update.run(fragment, -stamp, stamp, -stamp, at, userPk, month);
    },
  };
}

/** The steps that keep a tenant's dimension fields (../loading/dimensionFields.ts), a statement per row. */
export function fieldSteps(db: Db, tenantId: number): FieldSteps {
  const fragments = fragmentStatements(db);
  const usersAfter = db.prepare<[number, number, number], number>('SELECT pk FROM users WHERE tenant_id = ? AND pk > ? ORDER BY pk LIMIT ?').pluck();
  const setEmptyFragment = db.prepare<[string, number]>('UPDATE tenants SET empty_fragment = ? WHERE id = ?');
  const stampRecords = stampAllRecords(db);
  return {
    dimensionKeys: () => fragments.dimensionKeys(tenantId),
    fieldsOfUsers(userPks) {
      const stored: UserMonthFragment[] = [];
      const periods: UserGroupPeriod[] = [];
      for (const userPk of userPks) {
        const months = fragments.fragments(userPk, ALL_MONTHS);
        if (months.length === 0) continue;
        for (const [month, fragment] of months) stored.push({ userPk, month, fragment });
        for (const period of fragments.periods(userPk, ALL_MONTHS)) periods.push({ ...period, userPk });
      }
      return { stored, periods };
    },
    setFields(changed, stamp) {
      fragments.setFragments(tenantId, changed, stamp);
    },
    usersAfter: (afterPk, n) => usersAfter.all(tenantId, afterPk, n),
    setEmptyFragment: (fragment) => void setEmptyFragment.run(fragment, tenantId),
    stampRecords: (stamp) => stampRecords({ stamp, tenantId }),
  };
}

const lowest = (month: number | null) => month ?? Number.MIN_SAFE_INTEGER;
const highest = (month: number | null) => month ?? Number.MAX_SAFE_INTEGER;
