import type { ModifiedBetween, V2Reads, V2Row } from '../paging/v2Paging.js';
import type { Db } from './db.js';

type RowParams = { owner: number; from: number; n: number; after: number; before: number; empty?: string; key?: string };

/**
 * The reads of the v2 routes (docs/rules.md#v2-reads), prepared once per connection. A
 * record's time is that of the first dated stamp at or after its own (migration 7): a stamp
 * taken before the migration has the time of the first one dated after it.
 */
export function v2Reads(db: Db): V2Reads {
  const timeOf = (stamp: string) => `(SELECT t.at FROM stamp_times t WHERE t.tenant_id = @owner AND t.stamp >= ${stamp} ORDER BY t.stamp LIMIT 1)`;
  const reportingRows = db
    .prepare<RowParams, V2Row>(
      `SELECT r.body || ifnull(d.fragment, @empty), ${timeOf('max(r.stamp, ifnull(d.stamp, 0))')} AS at
       FROM reporting_records r LEFT JOIN dimension_values d ON d.user_pk = r.user_pk AND d.month = r.month
       WHERE r.tenant_id = @owner AND r.pos >= @from AND at > @after AND at < @before
       ORDER BY r.pos LIMIT @n`,
    )
    .raw();
  const tableRows = db
    .prepare<RowParams, V2Row>(
      `SELECT r.body, ${timeOf('r.stamp')} AS at
       FROM data_tables dt JOIN table_records r ON r.table_pk = dt.pk
       WHERE dt.tenant_id = @owner AND dt.key = @key AND r.pos >= @from AND at > @after AND at < @before
       ORDER BY r.pos LIMIT @n`,
    )
    .raw();
  const tableOf = db.prepare<[number, string], number>('SELECT pk FROM data_tables WHERE tenant_id = ? AND key = ?').pluck();
  const reportingPosition = db
    .prepare<{ owner: number; id: string }, number>(
      `SELECT ifnull((SELECT pos FROM reporting_records WHERE tenant_id = @owner AND id = @id),
                     (SELECT pos FROM removed_records WHERE tenant_id = @owner AND owner = 0 AND id = @id))`,
    )
    .pluck();
  const tablePosition = db
    .prepare<{ owner: number; id: string }, number>(
      `SELECT ifnull((SELECT pos FROM table_records WHERE table_pk = @owner AND id = @id),
                     (SELECT pos FROM removed_records WHERE tenant_id = 0 AND owner = @owner AND id = @id))`,
    )
    .pluck();
  const emails = db.prepare<[string, number], [string, string]>('SELECT u.id, u.email FROM json_each(?) j JOIN users u ON u.tenant_id = ? AND u.id = j.value').raw();
  const params = (owner: number, from: number, n: number, { after, before }: ModifiedBetween) => ({ owner, from, n, after, before });

  return {
    reportingPosition: (tenantId, id) => reportingPosition.get({ owner: tenantId, id }) ?? undefined,
    tablePosition(tenantId, tableKey, id) {
      const tablePk = tableOf.get(tenantId, tableKey);
      return tablePk === undefined ? undefined : (tablePosition.get({ owner: tablePk, id }) ?? undefined);
    },
    reportingRows: (tenantId, emptyFragment, from, n, modified) => reportingRows.all({ ...params(tenantId, from, n, modified), empty: emptyFragment }),
    tableRows(tenantId, tableKey, from, n, modified) {
      return tableOf.get(tenantId, tableKey) === undefined ? undefined : tableRows.all({ ...params(tenantId, from, n, modified), key: tableKey });
    },
    userEmails: (tenantId, ids) => emails.all(JSON.stringify(ids), tenantId),
  };
}
