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
 * Each text is stored cut around its user (migration 27): `head` and `tail` in the record's
 * row, the user object (v1) and reference (v2) once per user and month in `dimension_values`,
 * the row a read joins for the dimension fields (`d`).
 */
export function bothTexts<Params extends object>(db: Db, v1: string, v2: string): (params: Params) => void {
  const first = db.prepare<Params>(v1);
  const second = db.prepare<Params>(v2);
  return (params) => {
    if (first.run(params).changes > 0) second.run(params);
  };
}

/** A record's v1 text without its dimension fields (`r`: its row, `d`: its user-month row). */
export const RECORD_V1 = 'r.head || d.user_json || r.tail';
/** A statement line's v2 text without its statement, dimension fields and time (`r`: its v2 row, `d`: its user-month row). */
export const RECORD_V2 = 'r.head || d.user_v2 || r.tail';
/** The fields after the user of a stored record (`tail`, in either table) as a JSON object. */
export const TAIL_OBJECT = `('{' || substr(tail, 2) || '}')`;
/**
 * A field of the head of a stored record (`head`, its column), as a JSON value. `headField('head', 'plan')`
 * is the expression of the index `reporting_records_by_plan` (migration 27).
 */
export const headField = (head: string, field: 'plan' | 'date') => `json_extract(${head} || 'null}', '$.${field}')`;

/** The user texts of a user-month row from the user's object (`json`, an SQL expression): the object, and its first two fields as v2's reference. */
export const userTexts = (json: string) => ({ v1: json, v2: `substr(${json}, 1, instr(${json}, ',"name":') - 1) || '}'` });

/** The named parameters of {@link userRerender}. */
export type RerenderParams = UserRerender & { stamp: number };

/**
 * Writes a changed user's texts (its stored object, just written) into every user-month row of
 * the user, stamped `@stamp` and dated, so that every record of the user counts as changed
 * (a sync reads it in the stream of changed dimension fields, a v2 read takes the row's time)
 * without a write of any record. A row made by this same transaction keeps minus its stamp
 * (migration 5): its records carry the stamp themselves.
 */
export function userRerender(db: Db): (params: RerenderParams) => void {
  const texts = userTexts('u.json');
  const update = db.prepare<{ userPk: number; stamp: number }>(
    `UPDATE dimension_values SET (user_json, user_v2) = (SELECT ${texts.v1}, ${texts.v2} FROM users u WHERE u.pk = @userPk),
       changed_at = CASE stamp WHEN -@stamp THEN changed_at ELSE ${stampTime('tenant_id', '@stamp')} END,
       stamp = CASE stamp WHEN -@stamp THEN stamp ELSE @stamp END
     WHERE user_pk = @userPk`,
  );
  return ({ userPk, stamp }) => void update.run({ userPk, stamp });
}

/** Stamps every record of a tenant (`@tenantId`) with `@stamp`. */
export function stampAllRecords(db: Db): (params: { stamp: number; tenantId: number }) => void {
  return bothTexts(
    db,
    'UPDATE reporting_records SET stamp = @stamp WHERE tenant_id = @tenantId',
    `UPDATE reporting_records_v2 SET changed_at = ${stampTime('@tenantId', '@stamp')} WHERE tenant_id = @tenantId`,
  );
}
