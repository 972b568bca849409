import { renderDimensionFragment, type GroupPeriod } from '../../domain/reportingJson.js';
import type { Period } from '../../domain/periods.js';
import type { Db } from './db.js';

/** Every month: the bounds of a full re-render. */
const ALL_MONTHS: Period = { start: null, end: null };

/**
 * Keeps `dimension_values` (the dimension fields of each user and month that has reporting
 * records) in step with the group attributions. Call inside the transaction that changed the
 * attributions or added records, so that the next read shows the change
 * (docs/rules.md#metrics-and-dimensions).
 */
export function dimensionValuesRefresher(db: Db) {
  const usersOfTenant = db.prepare<[number], number>('SELECT pk FROM users WHERE tenant_id = ?').pluck();
  const setEmptyFragment = db.prepare<[string, number]>('UPDATE tenants SET empty_fragment = ? WHERE id = ?');
  const stampRecords = db.prepare<[number, number]>('UPDATE reporting_records SET stamp = ? WHERE tenant_id = ?');
  const fragments = fragmentStatements(db);

  /**
   * Re-renders every fragment of `userPks`; `stamp`: of the changes. Without `userPks` (the
   * tenant's dimensions changed), every fragment and so every record changes: the records take
   * the stamp and the fragments minus it (migration 5), so that a sync reads them in record
   * order rather than passing over every record once per fragment.
   */
  return (tenantId: number, stamp: number, userPks?: Iterable<number>): void => {
    const keys = fragments.dimensionKeys(tenantId);
    setEmptyFragment.run(renderDimensionFragment(keys, [], 0), tenantId);
    if (userPks) {
      for (const userPk of userPks) fragments.render(keys, userPk, ALL_MONTHS, stamp);
      return;
    }
    for (const userPk of usersOfTenant.all(tenantId)) fragments.render(keys, userPk, ALL_MONTHS, -stamp);
    stampRecords.run(stamp, tenantId);
  };
}

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
  // A row made by this same transaction keeps minus its stamp (see migration 5).
  const update = db.prepare<{ fragment: string; stamp: number; userPk: number; month: number }>(
    'UPDATE dimension_values SET fragment = @fragment, stamp = CASE stamp WHEN -@stamp THEN stamp ELSE @stamp END WHERE user_pk = @userPk AND month = @month',
  );

  const fragments = (userPk: number, months: Period) => monthsOfUser.all(userPk, lowest(months.start), highest(months.end));
  const periods = (userPk: number, months: Period) => periodsOfUser.all(userPk, highest(months.end), lowest(months.start));
  const setFragment = (userPk: number, month: number, fragment: string, stamp: number) => update.run({ fragment, stamp, userPk, month });
  return {
    /** The tenant's dimension keys, in the order of the record fields. */
    dimensionKeys: (tenantId: number) => dimensionKeys.all(tenantId),
    /** The stored dimension fields of `userPk` in the months of `months`, as [month, fields]. */
    fragments,
    /** The group attributions of `userPk` that share a month with `months`. */
    periods,
    setFragment,
    /** Re-renders the fragments of `userPk` in the months of `months` that have records (`stamp`: of the changes). */
    render(keys: readonly string[], userPk: number, months: Period, stamp: number): void {
      const stored = fragments(userPk, months);
      if (stored.length === 0) return;
      const held = periods(userPk, months);
      for (const [month, fragment] of stored) {
        const rendered = renderDimensionFragment(keys, held, month);
        if (rendered !== fragment) setFragment(userPk, month, rendered, stamp);
      }
    },
  };
}

const lowest = (month: number | null) => month ?? Number.MIN_SAFE_INTEGER;
const highest = (month: number | null) => month ?? Number.MAX_SAFE_INTEGER;
