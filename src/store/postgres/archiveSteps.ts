import type { ReportAfter } from '../../domain/archiveItems.js';
import type { ArchiveSteps } from '../engine/apiWriteSteps.js';
import { rowsOf, run, statement, type Queryable } from './connection.js';

const reportsAfter = statement<[number, number[], number[]], ReportAfter>(
  `SELECT DISTINCT ON (a.manager_pk) a.manager_pk AS "managerPk", u.email AS "reportEmail",
     greatest(coalesce(a.start_month, w.last + 1), w.last + 1) AS month
   FROM unnest($2::bigint[], $3::integer[]) AS w (user_pk, last)
   JOIN manager_attributions a ON a.tenant_id = $1 AND a.manager_pk = w.user_pk AND (a.end_month IS NULL OR a.end_month > w.last)
   JOIN users u ON u.tenant_id = $1 AND u.pk = a.user_pk
   ORDER BY a.manager_pk, month`,
);
const archive = statement<[number, number[], number[]]>(
  `UPDATE users u SET archived_after = c.last FROM unnest($2::bigint[], $3::integer[]) AS c (user_pk, last)
   WHERE u.tenant_id = $1 AND u.pk = c.user_pk`,
);

/** The steps of `DELETE /v1/users/archive/bulk` (../writes/userArchive.ts) on PostgreSQL besides the bulks' user lookups: each one statement over arrays. */
export function archiveSteps(db: Queryable, tenantId: number): Pick<ArchiveSteps, 'reportsAfter' | 'archive'> {
  return {
    reportsAfter: (wanted) => rowsOf(db, reportsAfter, tenantId, wanted.map((w) => w.userPk), wanted.map((w) => w.end)),
    archive: async (rows) => void (await run(db, archive, tenantId, rows.map((r) => r.userPk), rows.map((r) => r.end))),
  };
}
