import { formatMonth } from '../../domain/months.js';
import type { ReportingUser } from '../../domain/reportingJson.js';
import { renderUserReference } from '../../domain/v2Json.js';
import type { Db } from './db.js';

/** One user-month text of a user, with what its user holds: the first month holding it. */
type StoredUserText = { email: string; json: string; month: number; userJson: string | null; userV2: string | null };

/**
 * What `compdata check` verifies of the user texts kept once per user and month (migration 27),
 * on a connection inside the check's read transaction: every user-month row holds its user's
 * object and the v2 reference rendered from it, and every record's stored texts join around
 * them into one JSON object (v1 with its dimension fields, v2 with its closing brace), cut where
 * the user stands. The first problem as what is wrong, or `undefined`.
 */
export function userTextReads(db: Db): (tenantId: number) => string | undefined {
  // Each distinct text of each user once, with its first month: a user's rows hold one text.
  const texts = db.prepare<[number], StoredUserText>(
    `SELECT u.email, u.json, min(d.month) AS month, d.user_json AS userJson, d.user_v2 AS userV2
     FROM dimension_values d JOIN users u ON u.pk = d.user_pk WHERE d.tenant_id = ?
     GROUP BY d.user_pk, d.user_json, d.user_v2 ORDER BY u.email, month`,
  );
  const brokenRecord = db
    .prepare<[number], string>(
      `SELECT r.id FROM reporting_records r
       JOIN reporting_records_v2 v ON v.tenant_id = r.tenant_id AND v.pos = r.pos
       JOIN dimension_values d ON d.user_pk = r.user_pk AND d.month = r.month
       WHERE r.tenant_id = ? AND NOT (substr(r.head, -7) = '"user":' AND substr(r.tail, 1, 11) = ',"payment":'
         AND substr(v.head, -16) = '"standard.user":' AND substr(v.tail, 1, 20) = ',"standard.payment":'
         AND json_valid(r.head || d.user_json || r.tail || d.fragment) AND json_valid(v.head || d.user_v2 || v.tail || '}'))
       ORDER BY r.pos LIMIT 1`,
    )
    .pluck();
  return (tenantId) => {
    for (const row of texts.all(tenantId)) {
      const reference = renderUserReference(JSON.parse(row.json) as ReportingUser);
      if (row.userJson !== row.json || row.userV2 !== reference) {
        return `user ${row.email} from ${formatMonth(row.month)}: its records show the user as ${row.userJson} and ${row.userV2}, the user is ${row.json} (docs/rules.md#users)`;
      }
    }
    const id = brokenRecord.get(tenantId);
    return id === undefined ? undefined : `reporting record ${JSON.stringify(id)}: its stored texts do not join around its user into one JSON object`;
  };
}
