import { renderDimensionFragment, type GroupPeriod } from '../domain/reportingJson.js';
import type { Db } from './db.js';

/**
 * Keeps `dimension_values` (the dimension fields of each user and month that has reporting
 * records) in step with the group attributions. Call inside the transaction that changed the
 * attributions or added records, so that the next read shows the change (D3).
 */
export function dimensionValuesRefresher(db: Db) {
  const dimensionKeys = db.prepare('SELECT key FROM dimensions WHERE tenant_id = ? ORDER BY position').pluck();
  const periodsOfUser = db.prepare(
    `SELECT d.key AS dimensionKey, g.name AS "group", a.start_month AS start, a.end_month AS "end"
     FROM group_attributions a
     JOIN groups g ON g.pk = a.group_pk
     JOIN dimensions d ON d.pk = a.dimension_pk
     WHERE a.user_pk = ?`,
  );
  const monthsOfUser = db.prepare('SELECT month, fragment FROM dimension_values WHERE user_pk = ?').raw();
  const update = db.prepare('UPDATE dimension_values SET fragment = ? WHERE user_pk = ? AND month = ?');
  const usersOfTenant = db.prepare('SELECT pk FROM users WHERE tenant_id = ?').pluck();
  const setEmptyFragment = db.prepare('UPDATE tenants SET empty_fragment = ? WHERE id = ?');

  /** Re-renders the fragments of `userPks` (all users of the tenant when omitted). */
  return (tenantId: number, userPks?: Iterable<number>): void => {
    const keys = dimensionKeys.all(tenantId) as string[];
    setEmptyFragment.run(renderDimensionFragment(keys, [], 0), tenantId);
    for (const userPk of userPks ?? (usersOfTenant.all(tenantId) as number[])) {
      const periods = periodsOfUser.all(userPk) as GroupPeriod[];
      for (const [month, stored] of monthsOfUser.all(userPk) as [number, string][]) {
        const fragment = renderDimensionFragment(keys, periods, month);
        if (fragment !== stored) update.run(fragment, userPk, month);
      }
    }
  };
}
