import type { ReportingUser } from '../../domain/reportingJson.js';
import { renderUserReference } from '../../domain/v2Json.js';
import type { Db } from './db.js';
import { bodyText } from './recordTexts.js';

/**
 * What `compdata check` verifies of the records that a rename leaves as they are (migration 28),
 * on a connection inside the check's read transaction: in every record's v1 body its user object
 * stands at `user_at` for `user_len` bytes, between `"user":` and `,"payment":`; that object
 * is its user's when the record's revision is its user-month row's (or the row holds no object),
 * and the row's object is the user's when it is not; the body joins with the dimension fields
 * into one JSON object; every v2 text holds its user's reference (rendered here from the user's
 * object). The id of the first record that does not, or `undefined`.
 */
export function userTextReads(db: Db): (tenantId: number) => string | undefined {
  const users = db.prepare<[number], { pk: number; json: string }>('SELECT pk, json FROM users WHERE tenant_id = ?');
  const brokenRecord = db
    .prepare<{ tenant: number; references: string }, string>(
      `SELECT r.id FROM reporting_records r
       JOIN reporting_records_v2 v ON v.tenant_id = r.tenant_id AND v.pos = r.pos
       JOIN dimension_values d ON d.user_pk = r.user_pk AND d.month = r.month
       JOIN users u ON u.pk = r.user_pk
       WHERE r.tenant_id = @tenant AND NOT (${bodyText('r.user_at - 7', '7')} = '"user":' AND ${bodyText('r.user_at + r.user_len', '11')} = ',"payment":'
         AND CASE WHEN d.user_json IS NULL OR r.user_rev = d.user_rev THEN ${bodyText('r.user_at', 'r.user_len')} ELSE d.user_json END = u.json
         AND json_valid(r.body || d.fragment)
         AND instr(v.body, '"standard.user":' || (@references ->> ('$."' || r.user_pk || '"')) || ',"standard.payment":') > 0)
       ORDER BY r.pos LIMIT 1`,
    )
    .pluck();
  return (tenantId) => {
    const references = Object.fromEntries(users.all(tenantId).map((user) => [user.pk, renderUserReference(JSON.parse(user.json) as ReportingUser)]));
    const id = brokenRecord.get({ tenant: tenantId, references: JSON.stringify(references) });
    return id;
  };
}
