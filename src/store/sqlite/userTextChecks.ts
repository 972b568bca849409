import { formatMonth } from '../../domain/months.js';
import type { ReportingUser } from '../../domain/reportingJson.js';
import { renderUserReference } from '../../domain/v2Json.js';
import type { Db } from './db.js';

/** One user object of a user's user-month rows, with the user's own: the first month holding it. */
type StoredUserText = { email: string; json: string; month: number; userJson: string | null };

/**
 * What `compdata check` verifies of the user object kept once per user and month (migration
 * 27), on a connection inside the check's read transaction: every user-month row holds its
 * user's object; every record's v1 texts are cut where the user stands and join around it, with
 * the dimension fields, into one JSON object; every v2 text holds its user's reference. The
 * first problem as what is wrong, or `undefined`.
 */
export function userTextReads(db: Db): (tenantId: number) => string | undefined {
  // Each distinct object of each user once, with its first month: a user's rows hold one.
  const objects = db.prepare<[number], StoredUserText>(
    `SELECT u.email, u.json, min(d.month) AS month, d.user_json AS userJson
     FROM dimension_values d JOIN users u ON u.pk = d.user_pk WHERE d.tenant_id = ?
     GROUP BY d.user_pk, d.user_json ORDER BY u.email, month`,
  );
  const references = db.prepare<[number], { pk: number; json: string }>('SELECT pk, json FROM users WHERE tenant_id = ?');
  const brokenRecord = db
    .prepare<{ tenant: number; references: string }, string>(
      `SELECT r.id FROM reporting_records r
       JOIN reporting_records_v2 v ON v.tenant_id = r.tenant_id AND v.pos = r.pos
       JOIN dimension_values d ON d.user_pk = r.user_pk AND d.month = r.month
       WHERE r.tenant_id = @tenant AND NOT (substr(r.head, -7) = '"user":' AND substr(r.tail, 1, 11) = ',"payment":'
         AND json_valid(r.head || d.user_json || r.tail || d.fragment)
         AND instr(v.body, '"standard.user":' || (@references ->> ('$."' || r.user_pk || '"')) || ',"standard.payment":') > 0)
       ORDER BY r.pos LIMIT 1`,
    )
    .pluck();
  return (tenantId) => {
    for (const row of objects.all(tenantId)) {
      if (row.userJson !== row.json) return `user ${row.email} from ${formatMonth(row.month)}: its records show the user as ${row.userJson}, the user is ${row.json} (docs/rules.md#users)`;
    }
    const rendered = Object.fromEntries(references.all(tenantId).map((user) => [user.pk, renderUserReference(JSON.parse(user.json) as ReportingUser)]));
    const id = brokenRecord.get({ tenant: tenantId, references: JSON.stringify(rendered) });
    return id === undefined ? undefined : `reporting record ${JSON.stringify(id)}: its stored texts do not join around its user into one JSON object, or its v2 text does not hold its user's reference`;
  };
}
