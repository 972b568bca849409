import type { StatementSteps } from '../engine/loadSteps.js';
import { rowsOf, run, statement, type Queryable } from './connection.js';

/**
 * The statements of a tenant on PostgreSQL (migrations 19 and 20, as ../sqlite/statementSteps.ts):
 * totals summed by the database in millionths from the stored lines. `$1` is always the tenant;
 * each statement reads the tenant's rows of tables co-located with `statements` (one task on Citus).
 */
/**
 * A line's payment (in millionths) and its currency (as JSON text), read from its stored tail
 * (the fields after its user object, recordParts.ts) by their keys, which every body holds as
 * domain/reportingJson.ts writes them: `"payment":<number>` and `"payment_currency":"<code>"`.
 * Not through the json type: PostgreSQL refuses to read a text holding an escaped U+0000
 * (test/store/postgres/unstorableText.test.ts). A quote inside a JSON string is escaped, so
 * only a key matches.
 */
export const LINE_MICROS = `round(substring(tail from '"payment":(-?[0-9][-+.0-9eE]*)')::numeric * 1000000)::bigint`;
export const LINE_CURRENCY = `substring(tail from '"payment_currency":("[^"]*")')`;

const removeEmpty = statement<[number]>(
  `DELETE FROM statements s WHERE s.tenant_id = $1
     AND NOT EXISTS (SELECT 1 FROM reporting_records r WHERE r.tenant_id = $1 AND r.user_pk = s.user_pk AND r.month = s.month)`,
);
const upsertTotals = statement<[number, number, number]>(
  `INSERT INTO statements (tenant_id, user_pk, month, status, total, currency_json, changed_at)
   SELECT l.tenant_id, l.user_pk, l.month, CASE WHEN l.month < $3 THEN 'validated' ELSE 'draft' END,
     CASE WHEN min(l.currency) = max(l.currency) THEN sum(l.micros) END, CASE WHEN min(l.currency) = max(l.currency) THEN min(l.currency) END,
     min(t.at)
   FROM (SELECT tenant_id, user_pk, month, ${LINE_CURRENCY} COLLATE "C" AS currency, ${LINE_MICROS} AS micros
         FROM reporting_records WHERE tenant_id = $1) AS l
   JOIN stamp_times t ON t.tenant_id = l.tenant_id AND t.stamp = $2
   WHERE l.tenant_id = $1
   GROUP BY l.tenant_id, l.user_pk, l.month
   ON CONFLICT (tenant_id, user_pk, month) DO UPDATE SET total = excluded.total, currency_json = excluded.currency_json, changed_at = excluded.changed_at
   WHERE (statements.total, statements.currency_json) IS DISTINCT FROM (excluded.total, excluded.currency_json)`,
);
/** The rows given (arrays beside the tenant's row of `tenant_state`, as tenantKeys.ts `tenantRows`) with no statement. */
const missingStatements = statement<[number, number[], number[]], { n: number }>(
  `SELECT g.n::integer AS n
   FROM tenant_state s CROSS JOIN unnest($2::bigint[], $3::integer[]) WITH ORDINALITY AS g (user_pk, month, n)
   LEFT JOIN statements st ON st.tenant_id = s.tenant_id AND st.user_pk = g.user_pk AND st.month = g.month
   WHERE s.tenant_id = $1 AND st.tenant_id IS NULL ORDER BY g.n`,
);
const setStatuses = statement<[number, number[], number[], string[], number]>(
  `UPDATE statements s SET status = g.status, changed_at = t.at
   FROM unnest($2::bigint[], $3::integer[], $4::text[]) AS g (user_pk, month, status), stamp_times t
   WHERE s.tenant_id = $1 AND s.user_pk = g.user_pk AND s.month = g.month AND s.status <> g.status
     AND t.tenant_id = s.tenant_id AND t.stamp = $5`,
);

export function statementSteps(db: Queryable, tenantId: number): StatementSteps {
  return {
    async refreshStatements(stamp, current) {
      await run(db, removeEmpty, tenantId);
      await run(db, upsertTotals, tenantId, stamp, current);
    },
    async setStatementStatuses(rows, stamp) {
      const userPks = rows.map((row) => row.userPk);
      const months = rows.map((row) => row.month);
      await run(db, setStatuses, tenantId, userPks, months, rows.map((row) => row.status), stamp);
      return (await rowsOf(db, missingStatements, tenantId, userPks, months)).map((row) => row.n - 1);
    },
  };
}
