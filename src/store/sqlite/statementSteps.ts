import type { StatementSteps } from '../engine/loadSteps.js';
import { stampTime } from './changeStamps.js';
import type { Db } from './db.js';

/** A stored line's payment currency (as JSON text) and payment in millionths, read from its body (columns of `reporting_records`). */
export const LINE_CURRENCY = `(body || '}') -> '$.payment_currency'`;
export const LINE_MICROS = `CAST(round(((body || '}') ->> '$.payment') * 1000000) AS INTEGER)`;

/**
 * The statements of a tenant on SQLite (migration 16, docs/rules.md#statements): each total is
 * the sum of its lines' payments in millionths, computed by the database from the stored lines,
 * so that it is exact and the same on both engines; `NULL` (and no currency) when the lines
 * are in more than one currency.
 */
export function statementSteps(db: Db, tenantId: number): StatementSteps {
  const removeEmpty = db.prepare<{ tenant: number }>(
    `DELETE FROM statements WHERE tenant_id = @tenant
       AND NOT EXISTS (SELECT 1 FROM reporting_records r WHERE r.tenant_id = @tenant AND r.user_pk = statements.user_pk AND r.month = statements.month)`,
  );
  const upsertTotals = db.prepare<{ tenant: number; stamp: number; current: number }>(
    `INSERT INTO statements (tenant_id, user_pk, month, status, total, currency_json, changed_at)
     SELECT @tenant, user_pk, month, CASE WHEN month < @current THEN 'validated' ELSE 'draft' END,
       CASE WHEN min(currency) IS max(currency) THEN sum(micros) END, CASE WHEN min(currency) IS max(currency) THEN min(currency) END,
       ${stampTime('@tenant', '@stamp')}
     FROM (SELECT user_pk, month, ${LINE_CURRENCY} AS currency, ${LINE_MICROS} AS micros
           FROM reporting_records WHERE tenant_id = @tenant) AS lines
     WHERE true GROUP BY user_pk, month
     ON CONFLICT (tenant_id, user_pk, month) DO UPDATE SET total = excluded.total, currency_json = excluded.currency_json, changed_at = excluded.changed_at
     WHERE (statements.total, statements.currency_json) IS NOT (excluded.total, excluded.currency_json)`,
  );
  const exists = db.prepare<[number, number, number], number>('SELECT 1 FROM statements WHERE tenant_id = ? AND user_pk = ? AND month = ?').pluck();
  const setStatus = db.prepare<{ tenant: number; userPk: number; month: number; status: string; stamp: number }>(
    `UPDATE statements SET status = @status, changed_at = ${stampTime('@tenant', '@stamp')}
     WHERE tenant_id = @tenant AND user_pk = @userPk AND month = @month AND status <> @status`,
  );
  return {
    refreshStatements(stamp, current) {
      removeEmpty.run({ tenant: tenantId });
      upsertTotals.run({ tenant: tenantId, stamp, current });
    },
    setStatementStatuses(rows, stamp) {
      const missing: number[] = [];
      for (const [index, row] of rows.entries()) {
        if (exists.get(tenantId, row.userPk, row.month) === undefined) missing.push(index);
        else setStatus.run({ tenant: tenantId, stamp, ...row });
      }
      return missing;
    },
  };
}
