import type { ManagerEdge } from '../../domain/bulkChecks.js';
import type { ArchivedManager, InvariantReads, PositionGap, SlotOverlap, StatementMismatch, UserFragments } from '../engine/snapshotSteps.js';
import type { Tenant } from '../vocabulary/tenancy.js';
import type { Violation } from '../vocabulary/adminShapes.js';
import type { Db } from './db.js';
import { fragmentStatements } from './dimensionValues.js';
import { LINE_CURRENCY, LINE_MICROS } from './statementSteps.js';
import { userTextReads } from './userTextChecks.js';

/** The first group attribution whose group is not a group of its dimension (migration 24), named by its key (migration 27). */
const UNHELD_GROUP = `SELECT 'user ' || a.user_pk || ', dimension ' || a.dimension_pk || ', start ' || a.start_month FROM group_attributions a
  WHERE NOT EXISTS (SELECT 1 FROM groups g WHERE g.pk = a.group_pk AND g.dimension_pk = a.dimension_pk) LIMIT 1`;

/** Users whose dimension fields are compared per chunk. */
const USERS_PER_CHUNK = 500;
/** An open end, as a number months compare with. */
const NO_END = 2_147_483_647;

/**
 * The reads of `compdata check` on SQLite (see ../admin/invariantCheck.ts), on a connection inside
 * one read transaction. Two periods of a slot overlap exactly when, sorted by start, some
 * period starts before the one before it ends: one window over the index, no pairwise join.
 */
/** The time of `stamp` of the tenant `@tenant`. */
const TIME_OF = (stamp: string) => `SELECT at FROM stamp_times WHERE tenant_id = @tenant AND stamp = ${stamp}`;

export function invariantReads(db: Db): InvariantReads {
  const tenants = db.prepare<[], Tenant>('SELECT id, name FROM tenants');
  const groupOverlap = db.prepare<[number], SlotOverlap>(
    `SELECT u.email, d.key AS dimension, e.name AS earlier, g.name AS later, o.start_month AS month
     FROM (
       SELECT a.user_pk, a.dimension_pk, a.group_pk, a.start_month,
         lag(a.group_pk) OVER w AS earlier_group, lag(coalesce(a.end_month, ${NO_END})) OVER w AS earlier_end
       FROM group_attributions a JOIN users t ON t.pk = a.user_pk AND t.tenant_id = ?
       WINDOW w AS (PARTITION BY a.user_pk, a.dimension_pk ORDER BY a.start_month)
     ) o
     JOIN users u ON u.pk = o.user_pk JOIN dimensions d ON d.pk = o.dimension_pk
     JOIN groups g ON g.pk = o.group_pk JOIN groups e ON e.pk = o.earlier_group
     WHERE o.earlier_end >= o.start_month
     ORDER BY u.email, d.key, o.start_month LIMIT 1`,
  );
  const managerOverlap = db.prepare<[number], SlotOverlap>(
    `SELECT u.email, e.email AS earlier, m.email AS later, max(coalesce(o.start_month, 0), 0) AS month
     FROM (
       SELECT a.user_pk, a.manager_pk, a.start_month,
         lag(a.manager_pk) OVER w AS earlier_manager, lag(coalesce(a.end_month, ${NO_END})) OVER w AS earlier_end
       FROM manager_attributions a JOIN users t ON t.pk = a.user_pk AND t.tenant_id = ?
       WINDOW w AS (PARTITION BY a.user_pk ORDER BY coalesce(a.start_month, -1), a.pk)
     ) o
     JOIN users u ON u.pk = o.user_pk JOIN users m ON m.pk = o.manager_pk JOIN users e ON e.pk = o.earlier_manager
     WHERE o.earlier_end >= coalesce(o.start_month, -1)
     ORDER BY u.email, o.start_month LIMIT 1`,
  );
  const managerEdges = db.prepare<[number], ManagerEdge>(
    `SELECT a.user_pk AS user, a.manager_pk AS manager, a.start_month AS start, a.end_month AS "end"
     FROM manager_attributions a JOIN users u ON u.pk = a.user_pk WHERE u.tenant_id = ?`,
  );
  const archivedManager = db.prepare<[number], ArchivedManager>(
    `SELECT m.email AS manager, u.email AS report, m.archived_after AS lastMonth,
       max(coalesce(a.start_month, m.archived_after + 1), m.archived_after + 1) AS month
     FROM users m JOIN manager_attributions a ON a.manager_pk = m.pk JOIN users u ON u.pk = a.user_pk
     WHERE m.tenant_id = ? AND m.archived_after IS NOT NULL AND (a.end_month IS NULL OR a.end_month > m.archived_after)
     ORDER BY m.email, u.email LIMIT 1`,
  );
  const email = db.prepare<[number, number], string>('SELECT email FROM users WHERE tenant_id = ? AND pk = ?').pluck();
  const emptyFragment = db.prepare<[number], string>('SELECT empty_fragment FROM tenants WHERE id = ?').pluck();
  const usersWithFields = db.prepare<[number, number, number], { pk: number; email: string }>(
    `SELECT pk, email FROM users u WHERE tenant_id = ? AND pk > ?
       AND EXISTS (SELECT 1 FROM dimension_values v WHERE v.user_pk = u.pk)
     ORDER BY pk LIMIT ?`,
  );
  const recordWithoutFragment = db.prepare<[number], { id: string; email: string; month: number }>(
    `SELECT r.id, u.email, r.month FROM reporting_records r JOIN users u ON u.pk = r.user_pk
     WHERE r.tenant_id = ? AND NOT EXISTS (SELECT 1 FROM dimension_values v WHERE v.user_pk = r.user_pk AND v.month = r.month)
     ORDER BY r.pos LIMIT 1`,
  );
  const reportingPositions = db.prepare<[number], PositionGap>(
    `SELECT 'reporting records' AS what, count(*) AS count, min(pos) AS min, max(pos) AS max
     FROM reporting_records WHERE tenant_id = ? HAVING count(*) > 0 AND (min(pos) <> 0 OR max(pos) <> count(*) - 1)`,
  );
  // Migrations 8, 13 and 15: each record's v2 text (a statement's in its own row, of the same
  // user and month; a table record's with its id keyed `standard.id`), and beside each stamp
  // (but a fields row's minus one) its time.
  const v2Records = db
    .prepare<{ tenant: number }, string>(
      `SELECT ifnull(
         (SELECT 'reporting record ' || r.id FROM reporting_records r
          LEFT JOIN reporting_records_v2 v ON v.tenant_id = r.tenant_id AND v.pos = r.pos
          LEFT JOIN dimension_values d ON d.user_pk = r.user_pk AND d.month = r.month
          WHERE r.tenant_id = @tenant AND (v.body IS NULL OR (v.user_pk, v.month) IS NOT (r.user_pk, r.month)
            OR v.changed_at IS NOT (${TIME_OF('r.stamp')}) OR (d.stamp > 0 AND d.changed_at IS NOT (${TIME_OF('d.stamp')})))
          ORDER BY r.pos LIMIT 1),
         (SELECT 'record ' || r.id || ' of table ' || t.key FROM data_tables t JOIN table_records r ON r.table_pk = t.pk
          WHERE t.tenant_id = @tenant AND (r.body_v2 IS NULL OR substr(r.body_v2, 1, 15) <> '{"standard.id":'
            OR r.changed_at IS NOT (${TIME_OF('r.stamp')}))
          ORDER BY t.key, r.pos LIMIT 1))`,
    )
    .pluck();
  const tablePositions = db.prepare<[number], PositionGap>(
    `SELECT 'records of table ' || t.key AS what, count(*) AS count, min(r.pos) AS min, max(r.pos) AS max
     FROM data_tables t JOIN table_records r ON r.table_pk = t.pk WHERE t.tenant_id = ?
     GROUP BY t.pk HAVING min(r.pos) <> 0 OR max(r.pos) <> count(*) - 1 ORDER BY t.key LIMIT 1`,
  );
  // Migration 16: a statement for each user and month with lines, and none other, its total
  // and currency those its lines add up to (as statementSteps.ts sums them).
  const statementMismatch = db.prepare<{ tenant: number }, Omit<StatementMismatch, 'stored'> & { stored: number }>(
    `WITH l AS (
       SELECT user_pk, month, count(*) AS lines, CASE WHEN min(currency) IS max(currency) THEN sum(micros) END AS total,
         CASE WHEN min(currency) IS max(currency) THEN min(currency) END AS currency
       FROM (SELECT user_pk, month, ${LINE_CURRENCY} AS currency, ${LINE_MICROS} AS micros FROM reporting_records WHERE tenant_id = @tenant)
       GROUP BY user_pk, month),
     x AS (
       SELECT l.user_pk, l.month, l.lines, s.user_pk IS NOT NULL AS stored, s.total AS stored_total, s.currency_json AS stored_currency,
         l.total AS lines_total, l.currency AS lines_currency
       FROM l LEFT JOIN statements s ON s.tenant_id = @tenant AND s.user_pk = l.user_pk AND s.month = l.month
       WHERE s.user_pk IS NULL OR (s.total, s.currency_json) IS NOT (l.total, l.currency)
       UNION ALL
       SELECT s.user_pk, s.month, 0, 1, s.total, s.currency_json, NULL, NULL FROM statements s
       WHERE s.tenant_id = @tenant
         AND NOT EXISTS (SELECT 1 FROM reporting_records r WHERE r.tenant_id = @tenant AND r.user_pk = s.user_pk AND r.month = s.month))
     SELECT coalesce(u.email, '(user ' || x.user_pk || ')') AS email, x.month, x.lines, x.stored,
       CAST(x.stored_total AS TEXT) AS storedTotal, x.stored_currency AS storedCurrency,
       CAST(x.lines_total AS TEXT) AS linesTotal, x.lines_currency AS linesCurrency
     FROM x LEFT JOIN users u ON u.pk = x.user_pk ORDER BY 1, x.month LIMIT 1`,
  );
  const fragments = fragmentStatements(db);
  const ALL = { start: null, end: null };
  const userTexts = userTextReads(db);

  return {
    storage: async () => storageProblems(db),
    tenants: async () => tenants.all(),
    groupOverlap: async (tenantId) => groupOverlap.get(tenantId),
    managerOverlap: async (tenantId) => managerOverlap.get(tenantId),
    managerEdges: async (tenantId) => managerEdges.all(tenantId),
    archivedManager: async (tenantId) => archivedManager.get(tenantId),
    email: async (tenantId, userPk) => email.get(tenantId, userPk) ?? `(user ${userPk})`,
    dimensionKeys: async (tenantId) => fragments.dimensionKeys(tenantId),
    emptyFragment: async (tenantId) => emptyFragment.get(tenantId) ?? '',
    async *userFragments(tenantId) {
      for (let after = 0; ; ) {
        const users = usersWithFields.all(tenantId, after, USERS_PER_CHUNK);
        if (users.length === 0) return;
        yield users.map(
          (user): UserFragments => ({ email: user.email, stored: fragments.fragments(user.pk, ALL), periods: fragments.periods(user.pk, ALL) }),
        );
        after = users[users.length - 1]!.pk;
      }
    },
    recordWithoutFragment: async (tenantId) => recordWithoutFragment.get(tenantId),
    userObjectMismatch: async (tenantId) => {
      const recordId = userTexts(tenantId);
      return recordId === undefined ? undefined : { recordId };
    },
    positionGap: async (tenantId) => reportingPositions.get(tenantId) ?? tablePositions.get(tenantId),
    v2Mismatch: async (tenantId) => v2Records.get({ tenant: tenantId }) ?? undefined,
    async statementMismatch(tenantId) {
      const row = statementMismatch.get({ tenant: tenantId });
      return row && { ...row, stored: row.stored === 1 };
    },
  };
}

/**
 * The first problem `PRAGMA integrity_check` finds, and the first row breaking a foreign key or
 * the reference its writes hold instead of one (migration 24: a group attribution's group is a
 * group of its dimension).
 */
function storageProblems(db: Db): Violation[] {
  const found: Violation[] = [];
  const integrity = db.pragma('integrity_check(1)', { simple: true }) as string;
  if (integrity !== 'ok') found.push({ kind: 'integrity', example: `SQLite's integrity check: ${integrity}` });
  const [broken] = db.pragma('foreign_key_check') as { table: string; rowid: number | null; parent: string }[];
  if (broken) {
    const row = broken.rowid === null ? 'a row' : `row ${broken.rowid}`;
    found.push({ kind: 'foreign-keys', example: `${row} of ${broken.table} refers to a missing row of ${broken.parent}` });
  }
  const groupless = db.prepare<[], string>(UNHELD_GROUP).pluck().get();
  if (!broken && groupless !== undefined) {
    found.push({ kind: 'foreign-keys', example: `the row (${groupless}) of group_attributions refers to a missing row of groups (none of its dimension)` });
  }
  return found;
}
