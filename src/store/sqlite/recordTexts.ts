import type { UserRerender } from '../engine/commonWriteSteps.js';
import { stampTime } from './changeStamps.js';
import type { Db } from './db.js';

/**
 * A statement reporting record is stored in two rows of the same key (migration 13): its v1
 * text with its stamp in `reporting_records`, its v2 text with the time of that stamp in
 * `reporting_records_v2`. A write of both is a pair of statements, the second run only when
 * the first changed a row (an insert refused, or an update that finds nothing to change,
 * writes neither).
 */
export function bothTexts<Params extends object>(db: Db, v1: string, v2: string): (params: Params) => void {
  const first = db.prepare<Params>(v1);
  const second = db.prepare<Params>(v2);
  return (params) => {
    if (first.run(params).changes > 0) second.run(params);
  };
}

/** The named parameters of {@link userRerender}. */
export type RerenderParams = UserRerender & { stamp: number };

/** Rewrites the user object inside a user's record texts (`before` to `after`, in both versions), stamping them. */
export function userRerender(db: Db): (params: RerenderParams) => void {
  return bothTexts<RerenderParams>(
    db,
    'UPDATE reporting_records SET body = replace(body, @before, @after), stamp = @stamp WHERE user_pk = @userPk',
    `UPDATE reporting_records_v2 SET body = replace(body, @beforeV2, @afterV2), changed_at = ${stampTime('tenant_id', '@stamp')}
     WHERE (tenant_id, pos) IN (SELECT tenant_id, pos FROM reporting_records WHERE user_pk = @userPk)`,
  );
}

/** Stamps every record of a tenant (`@tenantId`) with `@stamp`. */
export function stampAllRecords(db: Db): (params: { stamp: number; tenantId: number }) => void {
  return bothTexts(
    db,
    'UPDATE reporting_records SET stamp = @stamp WHERE tenant_id = @tenantId',
    `UPDATE reporting_records_v2 SET changed_at = ${stampTime('@tenantId', '@stamp')} WHERE tenant_id = @tenantId`,
  );
}
