import type { UserRerender } from '../engine/commonWriteSteps.js';
import { stampTime } from './changeStamps.js';
import type { Db } from './db.js';

/**
 * A statement reporting record is stored in two rows of the same key (migration 13): its v1
 * text with its stamp in `reporting_records`, its v2 text with the time of that stamp in
 * `reporting_records_v2`. A write of both is a pair of statements, the second run only when
 * the first changed a row (an insert refused, or an update that finds nothing to change,
 * writes neither).
 *
 * The v1 text is stored cut around its user object (migration 28): `head` and `tail` in the
 * record's row; a read joins the user's object (`json` of `users`) between them. The v2 text is
 * stored whole.
 */
export function bothTexts<Params extends object>(db: Db, v1: string, v2: string): (params: Params) => void {
  const first = db.prepare<Params>(v1);
  const second = db.prepare<Params>(v2);
  return (params) => {
    if (first.run(params).changes > 0) second.run(params);
  };
}

/** The join of a record's (`r`) user, `u`, which {@link recordV1} reads. */
export const USER_JOIN = 'LEFT JOIN users u ON u.pk = r.user_pk';

/**
 * A record's v1 text (`r`: its row, `u`: its user) followed by `fields`, its dimension fields:
 * one `concat` copies the parts once, where each `||` would copy both its sides.
 */
export const recordV1 = (fields: string) => `concat(r.head, u.json, r.tail, ${fields})`;
/** The fields after the user of a stored record (its `tail`) as a JSON object. */
export const TAIL_OBJECT = `('{' || substr(tail, 2) || '}')`;
/**
 * A field of the head of a stored record (`head`, its column), as a JSON value. `headField('head', 'plan')`
 * is the expression of the index `reporting_records_by_plan` (migration 28).
 */
export const headField = (head: string, field: 'plan' | 'date') => `json_extract(${head} || 'null}', '$.${field}')`;

/** The named parameters of {@link userRerender}. */
export type RerenderParams = UserRerender & { stamp: number };

/**
 * Stamps and dates every user-month row of a changed user (its object is written with the user,
 * and read with each record), so that every record of the user counts as changed: a sync reads
 * it in the stream of changed dimension fields, a v2 read takes the row's time. No v1 record is
 * written. A row made by this same transaction keeps minus its stamp (migration 5): its records
 * carry the stamp themselves. A new reference (`{"id":…,"email":…}`, changed by a load only) is
 * replaced inside the user's v2 texts, whose time the user-month rows carry.
 */
export function userRerender(db: Db): (params: RerenderParams) => void {
  const rows = db.prepare<{ userPk: number; stamp: number }>(
    `UPDATE dimension_values SET changed_at = CASE stamp WHEN -@stamp THEN changed_at ELSE ${stampTime('tenant_id', '@stamp')} END,
       stamp = CASE stamp WHEN -@stamp THEN stamp ELSE @stamp END
     WHERE user_pk = @userPk`,
  );
  const references = db.prepare<{ userPk: number; beforeV2: string; afterV2: string }>(
    `UPDATE reporting_records_v2 SET body = replace(body, @beforeV2, @afterV2)
     WHERE (tenant_id, pos) IN (SELECT tenant_id, pos FROM reporting_records WHERE user_pk = @userPk)`,
  );
  return ({ userPk, stamp, beforeV2, afterV2 }) => {
    rows.run({ userPk, stamp });
    if (beforeV2 !== afterV2) references.run({ userPk, beforeV2, afterV2 });
  };
}

/** Stamps every record of a tenant (`@tenantId`) with `@stamp`. */
export function stampAllRecords(db: Db): (params: { stamp: number; tenantId: number }) => void {
  return bothTexts(
    db,
    'UPDATE reporting_records SET stamp = @stamp WHERE tenant_id = @tenantId',
    `UPDATE reporting_records_v2 SET changed_at = ${stampTime('@tenantId', '@stamp')} WHERE tenant_id = @tenantId`,
  );
}
