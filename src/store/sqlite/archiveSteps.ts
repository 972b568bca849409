import type { ReportAfter } from '../../domain/archiveItems.js';
import type { ArchiveSteps } from '../engine/apiWriteSteps.js';
import type { Db } from './db.js';

/** The steps of `DELETE /v1/users/archive/bulk` (../writes/userArchive.ts) on SQLite besides the bulks' user lookups: a statement per user. */
export function archiveSteps(db: Db): Pick<ArchiveSteps, 'reportsAfter' | 'archive'> {
  const firstReportAfter = db.prepare<{ pk: number; end: number }, ReportAfter>(
    `SELECT a.manager_pk AS managerPk, u.email AS reportEmail, max(coalesce(a.start_month, @end + 1), @end + 1) AS month
     FROM manager_attributions a JOIN users u ON u.pk = a.user_pk
     WHERE a.manager_pk = @pk AND (a.end_month IS NULL OR a.end_month > @end)
     ORDER BY month LIMIT 1`,
  );
  const setLastMonth = db.prepare<[number, number]>('UPDATE users SET archived_after = ? WHERE pk = ?');
  return {
    reportsAfter: (wanted) => wanted.flatMap(({ userPk, end }) => firstReportAfter.all({ pk: userPk, end })),
    archive(rows) {
      for (const { userPk, end } of rows) setLastMonth.run(end, userPk);
    },
  };
}
