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
 * The v1 text is stored whole (`body`), with where its user object stands in it and the revision
 * of that object (migration 28); a read takes the user's object of its user-month row in its
 * place when the user changed since (see {@link recordV1}). The v2 text is stored whole.
 */
export function bothTexts<Params extends object>(db: Db, v1: string, v2: string): (params: Params) => void {
  const first = db.prepare<Params>(v1);
  const second = db.prepare<Params>(v2);
  return (params) => {
    if (first.run(params).changes > 0) second.run(params);
  };
}

/**
 * Bytes of the body of a record `r` from `from` (1 for the first) on, `length` of them or to the
 * end. The place of the user object (`user_at`, `user_len`) counts UTF-8 bytes, as `instr` and
 * `substr` count in a BLOB: `substr` of a text would walk its characters up to the place.
 */
const bodyBytes = (from: string, length?: string) => `substr(CAST(r.body AS BLOB), ${from}${length === undefined ? '' : `, ${length}`})`;

/** The {@link bodyBytes} of a record `r` as text. */
export const bodyText = (from: string, length?: string) => `CAST(${bodyBytes(from, length)} AS TEXT)`;

/**
 * A record's v1 text (`r`: its row, `d`: its user-month row) followed by `fields`, its dimension
 * fields. A record written with its user's current object (the user never changed: the row has
 * no `user_json`, or its `user_rev` is the row's) is its body; one of a user changed since is its
 * body with the row's object in place of the one at `user_at`. The test for no object comes
 * first: it is the cheaper, and the common case.
 */
export const recordV1 = (fields: string) =>
  `CASE WHEN d.user_json IS NULL OR r.user_rev = d.user_rev THEN r.body || ${fields}
   ELSE concat(${bodyBytes('1', 'r.user_at - 1')}, d.user_json, ${bodyBytes('r.user_at + r.user_len')}, ${fields}) END`;

/** Where the user object `json` stands in the v1 text `body`, as {@link bodyBytes} counts: the values of `user_at, user_len`. */
const userPlace = (body: string, json: string) =>
  `instr(CAST(${body} AS BLOB), CAST('"user":' || ${json} AS BLOB)) + 7, length(CAST(${json} AS BLOB))`;

/**
 * The values of `user_at, user_len, user_rev` of a record of user `@userPk` in month `@month`
 * whose v1 text `@body` was rendered with the user's current object: where the object stands in
 * the text (counted by SQLite, so that no other count of it can disagree), and the revision of
 * the object its user-month row holds (0 for a row not made yet, which starts at 0).
 */
export const USER_PLACE = `${userPlace('@body', '(SELECT json FROM users WHERE pk = @userPk)')},
  ifnull((SELECT user_rev FROM dimension_values WHERE user_pk = @userPk AND month = @month), 0)`;

/**
 * Writes its user's current object into every record of a user changed since the record was
 * written (`compdata compact`), with the revision of its user-month row, then drops the objects
 * of the user-month rows, whose records are all current now: each record reads as its stored
 * body, the same text as before, and the rows are as small as those of users never changed.
 * One transaction; no data changes, so nothing is stamped.
 */
export function refreshRenamedRecords(db: Db): void {
  const records = db.prepare(`UPDATE reporting_records AS r
    SET body = concat(${bodyBytes('1', 'r.user_at - 1')}, d.user_json, ${bodyBytes('r.user_at + r.user_len')}),
      user_len = length(CAST(d.user_json AS BLOB)), user_rev = d.user_rev
    FROM dimension_values d
    WHERE d.user_pk = r.user_pk AND d.month = r.month AND d.user_json IS NOT NULL AND r.user_rev <> d.user_rev`);
  const rows = db.prepare('UPDATE dimension_values SET user_json = NULL WHERE user_json IS NOT NULL');
  db.transaction(() => {
    records.run();
    rows.run();
  }).immediate();
}

/** The named parameters of {@link userRerender}. */
export type RerenderParams = UserRerender & { stamp: number };

/**
 * Writes a changed user's object (as `users` holds it, written before) into every user-month row
 * of the user with the next revision, and stamps and dates the rows, so that every record of the
 * user reads with the new object and counts as changed: a sync reads it in the stream of changed
 * dimension fields, a v2 read takes the row's time. No v1 record is written. A row made by this
 * same transaction keeps minus its stamp (migration 5): its records carry the stamp themselves.
 * A new reference (`{"id":…,"email":…}`, changed by a load only) is replaced inside the user's v2
 * texts, whose time the user-month rows carry.
 */
export function userRerender(db: Db): (params: RerenderParams) => void {
  const rows = db.prepare<{ userPk: number; stamp: number }>(
    `UPDATE dimension_values SET user_rev = user_rev + 1, user_json = (SELECT json FROM users WHERE pk = @userPk),
       changed_at = CASE stamp WHEN -@stamp THEN changed_at ELSE ${stampTime('tenant_id', '@stamp')} END,
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
