import type { ManagerEdge } from '../../domain/bulkChecks.js';
import type { GroupPeriod } from '../../domain/reportingJson.js';
import type {
  ArchivedManager,
  InvariantReads,
  PositionGap,
  SlotOverlap,
  StatementMismatch,
  UserFragments,
  UserObjectMismatch,
} from '../engine/snapshotSteps.js';
import type { Tenant } from '../vocabulary/tenancy.js';
import { firstRow, rowsOf, statement, type Queryable } from './connection.js';
import { fieldsOfUsers } from './dimensionValues.js';
import { LINE_CURRENCY, LINE_MICROS } from './statementSteps.js';

/** Users whose dimension fields are compared per round of statements. */
const USERS_PER_ROUND = 1_000;
/** An open end, as a number months compare with. */
const NO_END = 2_147_483_647;

const tenants = statement<[], Tenant>('SELECT id, name FROM tenants');
// Two periods of a slot overlap exactly when, sorted by start, some period starts before the
// one before it ends: one window over the index, no pairwise join.
const groupOverlap = statement<[number], SlotOverlap>(
  `SELECT u.email, d.key AS dimension, e.name AS earlier, g.name AS later, o.start_month AS month
   FROM (
     SELECT a.user_pk, a.dimension_pk, a.group_pk, a.start_month,
       lag(a.group_pk) OVER w AS earlier_group, lag(coalesce(a.end_month, ${NO_END})) OVER w AS earlier_end
     FROM group_attributions a WHERE a.tenant_id = $1
     WINDOW w AS (PARTITION BY a.user_pk, a.dimension_pk ORDER BY a.start_month, a.pk)
   ) o
   JOIN users u ON u.tenant_id = $1 AND u.pk = o.user_pk
   JOIN dimensions d ON d.tenant_id = $1 AND d.pk = o.dimension_pk
   JOIN groups g ON g.tenant_id = $1 AND g.pk = o.group_pk
   JOIN groups e ON e.tenant_id = $1 AND e.pk = o.earlier_group
   WHERE o.earlier_end >= o.start_month
   ORDER BY u.email, d.key, o.start_month LIMIT 1`,
);
const managerOverlap = statement<[number], SlotOverlap>(
  `SELECT u.email, e.email AS earlier, m.email AS later, greatest(coalesce(o.start_month, 0), 0) AS month
   FROM (
     SELECT a.user_pk, a.manager_pk, a.start_month,
       lag(a.manager_pk) OVER w AS earlier_manager, lag(coalesce(a.end_month, ${NO_END})) OVER w AS earlier_end
     FROM manager_attributions a WHERE a.tenant_id = $1
     WINDOW w AS (PARTITION BY a.user_pk ORDER BY coalesce(a.start_month, -1), a.pk)
   ) o
   JOIN users u ON u.tenant_id = $1 AND u.pk = o.user_pk
   JOIN users m ON m.tenant_id = $1 AND m.pk = o.manager_pk
   JOIN users e ON e.tenant_id = $1 AND e.pk = o.earlier_manager
   WHERE o.earlier_end >= coalesce(o.start_month, -1)
   ORDER BY u.email, o.start_month LIMIT 1`,
);
const managerEdges = statement<[number], ManagerEdge>(
  'SELECT user_pk AS "user", manager_pk AS manager, start_month AS start, end_month AS "end" FROM manager_attributions WHERE tenant_id = $1',
);
const archivedManager = statement<[number], ArchivedManager>(
  `SELECT m.email AS manager, u.email AS report, m.archived_after AS "lastMonth",
     greatest(coalesce(a.start_month, m.archived_after + 1), m.archived_after + 1) AS month
   FROM users m
   JOIN manager_attributions a ON a.tenant_id = $1 AND a.manager_pk = m.pk
   JOIN users u ON u.tenant_id = $1 AND u.pk = a.user_pk
   WHERE m.tenant_id = $1 AND m.archived_after IS NOT NULL AND (a.end_month IS NULL OR a.end_month > m.archived_after)
   ORDER BY m.email, u.email LIMIT 1`,
);
const email = statement<[number, number], { email: string }>('SELECT email FROM users WHERE tenant_id = $1 AND pk = $2');
const dimensionKeys = statement<[number], { key: string }>('SELECT key FROM dimensions WHERE tenant_id = $1 ORDER BY position');
const emptyFragment = statement<[number], { empty_fragment: string }>('SELECT empty_fragment FROM tenant_state WHERE tenant_id = $1');
const usersWithFields = statement<[number, number, number], { pk: number; email: string }>(
  `SELECT pk, email FROM users u WHERE tenant_id = $1 AND pk > $2
     AND EXISTS (SELECT 1 FROM dimension_values v WHERE v.tenant_id = $1 AND v.user_pk = u.pk)
   ORDER BY pk LIMIT $3`,
);
const recordWithoutFragment = statement<[number], { id: string; email: string; month: number }>(
  `SELECT r.id, u.email, r.month FROM reporting_records r JOIN users u ON u.tenant_id = $1 AND u.pk = r.user_pk
   WHERE r.tenant_id = $1
     AND NOT EXISTS (SELECT 1 FROM dimension_values v WHERE v.tenant_id = $1 AND v.user_pk = r.user_pk AND v.month = r.month)
   ORDER BY r.pos LIMIT 1`,
);
const reportingPositions = statement<[number], PositionGap>(
  `SELECT 'reporting records' AS what, count(*) AS count, min(pos) AS min, max(pos) AS max
   FROM reporting_records WHERE tenant_id = $1 HAVING count(*) > 0 AND (min(pos) <> 0 OR max(pos) <> count(*) - 1)`,
);
/** The time of `stamp` of the tenant `$1`. */
const TIME_OF = (stamp: string) => `SELECT at FROM stamp_times WHERE tenant_id = $1 AND stamp = ${stamp}`;
// See ../sqlite/migrations.ts, 8 and 15: each record's v2 text (a table record's with its id keyed `standard.id`), and beside
// each stamp (but a fields row's minus one) its time.
const v2Records = statement<[number], { record: string | null }>(
  `SELECT coalesce(
     (SELECT 'reporting record ' || r.id FROM reporting_records r
      LEFT JOIN dimension_values d ON d.tenant_id = r.tenant_id AND d.user_pk = r.user_pk AND d.month = r.month
      WHERE r.tenant_id = $1 AND (r.head_v2 IS NULL OR r.tail_v2 IS NULL OR r.changed_at IS DISTINCT FROM (${TIME_OF('r.stamp')})
        OR (d.stamp > 0 AND d.changed_at IS DISTINCT FROM (${TIME_OF('d.stamp')})))
      ORDER BY r.pos LIMIT 1),
     (SELECT 'record ' || r.id || ' of table ' || t.key FROM data_tables t JOIN table_records r ON r.tenant_id = t.tenant_id AND r.table_pk = t.pk
      WHERE t.tenant_id = $1 AND (r.body_v2 IS NULL OR left(r.body_v2, 15) <> '{"standard.id":'
        OR r.changed_at IS DISTINCT FROM (${TIME_OF('r.stamp')}))
      ORDER BY t.key, r.pos LIMIT 1)) AS record`,
);
const tablePositions = statement<[number], PositionGap>(
  `SELECT 'records of table ' || t.key AS what, count(*) AS count, min(r.pos) AS min, max(r.pos) AS max
   FROM data_tables t JOIN table_records r ON r.tenant_id = $1 AND r.table_pk = t.pk WHERE t.tenant_id = $1
   GROUP BY t.pk, t.key HAVING min(r.pos) <> 0 OR max(r.pos) <> count(*) - 1 ORDER BY t.key LIMIT 1`,
);
// Migrations 19 and 20: a statement for each user and month with lines, and none other, its
// total and currency those its lines add up to (as statementSteps.ts sums them).
const statementMismatch = statement<[number], StatementMismatch>(
  `WITH l AS (
     SELECT tenant_id, user_pk, month, count(*)::integer AS lines, CASE WHEN min(currency) = max(currency) THEN sum(micros) END AS total,
       CASE WHEN min(currency) = max(currency) THEN min(currency) END AS currency
     FROM (SELECT tenant_id, user_pk, month, ${LINE_CURRENCY} COLLATE "C" AS currency, ${LINE_MICROS} AS micros
           FROM reporting_records WHERE tenant_id = $1) AS lines
     GROUP BY tenant_id, user_pk, month),
   x AS (
     SELECT l.user_pk, l.month, l.lines, s.user_pk IS NOT NULL AS stored, s.total AS stored_total, s.currency_json AS stored_currency,
       l.total AS lines_total, l.currency AS lines_currency
     FROM l LEFT JOIN statements s ON s.tenant_id = l.tenant_id AND s.user_pk = l.user_pk AND s.month = l.month
     WHERE l.tenant_id = $1 AND (s.user_pk IS NULL OR (s.total, s.currency_json) IS DISTINCT FROM (l.total, l.currency))
     UNION ALL
     SELECT s.user_pk, s.month, 0, true, s.total, s.currency_json, NULL, NULL FROM statements s
     WHERE s.tenant_id = $1
       AND NOT EXISTS (SELECT 1 FROM reporting_records r WHERE r.tenant_id = s.tenant_id AND r.user_pk = s.user_pk AND r.month = s.month))
   SELECT coalesce(u.email, '(user ' || x.user_pk || ')') AS email, x.month, x.lines, x.stored,
     x.stored_total::text AS "storedTotal", x.stored_currency AS "storedCurrency",
     x.lines_total::text AS "linesTotal", x.lines_currency AS "linesCurrency"
   FROM x LEFT JOIN users u ON u.tenant_id = $1 AND u.pk = x.user_pk ORDER BY 1, x.month LIMIT 1`,
);

// Migrations 35 to 40 (recordParts.ts): each user-month row holds its user's object, and each
// record's parts are a body cut where recordParts.ts cuts it (its head ends with the only
// `,"user":` in it, its tail starts with `,"payment":`, and so for v2).
const userTextMismatch = statement<[number], { email: string; month: number; kept: string; user: string }>(
  `SELECT u.email, d.month, d.user_json AS kept, u.json AS user FROM dimension_values d JOIN users u ON u.tenant_id = $1 AND u.pk = d.user_pk
   WHERE d.tenant_id = $1 AND d.user_json IS DISTINCT FROM u.json ORDER BY u.email, d.month LIMIT 1`,
);
const uncutRecord = statement<[number], { id: string }>(
  `SELECT r.id FROM reporting_records r WHERE r.tenant_id = $1
     AND (strpos(r.head, ',"user":') IS DISTINCT FROM length(r.head) - 7 OR left(r.tail, 11) <> ',"payment":'
       OR strpos(r.head_v2, ',"standard.user":') IS DISTINCT FROM length(r.head_v2) - 16 OR left(r.tail_v2, 20) <> ',"standard.payment":')
   ORDER BY r.pos LIMIT 1`,
);

async function userObjectMismatch(db: Queryable, tenantId: number): Promise<UserObjectMismatch | undefined> {
  const user = await firstRow(db, userTextMismatch, tenantId);
  if (user) return user;
  const record = await firstRow(db, uncutRecord, tenantId);
  return record && { recordId: record.id };
}

/**
 * The references no foreign key holds (migrations 14, 15 and 41), as SQLite's foreign key check
 * reports a broken one: the first row of each table that refers to a missing row.
 */
const unheldReferences = statement<[], { child: string; parent: string }>(
  `SELECT 'table_records' AS child, 'data_tables' AS parent FROM (
     SELECT 1 FROM table_records r WHERE NOT EXISTS (SELECT 1 FROM data_tables t WHERE t.tenant_id = r.tenant_id AND t.pk = r.table_pk) LIMIT 1) AS broken
   UNION ALL
   SELECT 'removed_records', 'tenants' FROM (
     SELECT 1 FROM removed_records r WHERE NOT EXISTS (SELECT 1 FROM tenants t WHERE t.id = r.tenant_id) LIMIT 1) AS broken
   UNION ALL
   SELECT 'group_attributions', 'users' FROM (
     SELECT 1 FROM group_attributions a WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.tenant_id = a.tenant_id AND u.pk = a.user_pk) LIMIT 1) AS broken
   UNION ALL
   SELECT 'group_attributions', 'groups' FROM (
     SELECT 1 FROM group_attributions a WHERE NOT EXISTS (SELECT 1 FROM groups g WHERE g.tenant_id = a.tenant_id AND g.pk = a.group_pk) LIMIT 1) AS broken`,
);

/**
 * The reads of `compdata check` on PostgreSQL (see ../admin/invariantCheck.ts), on a connection inside
 * one read-only snapshot. The storage itself is PostgreSQL's to keep: it enforces its
 * constraints on every write, and has no counterpart of SQLite's integrity check to run here;
 * the references it does not hold are checked.
 */
export function invariantReads(db: Queryable): InvariantReads {
  return {
    storage: async () =>
      (await rowsOf(db, unheldReferences)).map(({ child, parent }) => ({ kind: 'foreign-keys', example: `a row of ${child} refers to a missing row of ${parent}` })),
    tenants: () => rowsOf(db, tenants),
    groupOverlap: (tenantId) => firstRow(db, groupOverlap, tenantId),
    managerOverlap: (tenantId) => firstRow(db, managerOverlap, tenantId),
    managerEdges: (tenantId) => rowsOf(db, managerEdges, tenantId),
    archivedManager: (tenantId) => firstRow(db, archivedManager, tenantId),
    email: async (tenantId, userPk) => (await firstRow(db, email, tenantId, userPk))?.email ?? `(user ${userPk})`,
    dimensionKeys: async (tenantId) => (await rowsOf(db, dimensionKeys, tenantId)).map((row) => row.key),
    emptyFragment: async (tenantId) => (await firstRow(db, emptyFragment, tenantId))?.empty_fragment ?? '',
    async *userFragments(tenantId) {
      for (let after = 0; ; ) {
        const users = await rowsOf(db, usersWithFields, tenantId, after, USERS_PER_ROUND);
        if (users.length === 0) return;
        const { stored, periods } = await fieldsOfUsers(db, tenantId, users.map((user) => user.pk));
        const storedOf = new Map<number, [number, string][]>();
        for (const row of stored) {
          const list = storedOf.get(row.userPk) ?? [];
          list.push([row.month, row.fragment]);
          storedOf.set(row.userPk, list);
        }
        const periodsOf = new Map<number, GroupPeriod[]>();
        for (const { userPk, ...period } of periods) {
          const list = periodsOf.get(userPk) ?? [];
          list.push(period);
          periodsOf.set(userPk, list);
        }
        yield users.map(
          (user): UserFragments => ({ email: user.email, stored: storedOf.get(user.pk) ?? [], periods: periodsOf.get(user.pk) ?? [] }),
        );
        after = users[users.length - 1]!.pk;
      }
    },
    recordWithoutFragment: (tenantId) => firstRow(db, recordWithoutFragment, tenantId),
    positionGap: async (tenantId) => (await firstRow(db, reportingPositions, tenantId)) ?? (await firstRow(db, tablePositions, tenantId)),
    v2Mismatch: async (tenantId) => (await firstRow(db, v2Records, tenantId))?.record ?? undefined,
    statementMismatch: (tenantId) => firstRow(db, statementMismatch, tenantId),
    userObjectMismatch: (tenantId) => userObjectMismatch(db, tenantId),
  };
}
