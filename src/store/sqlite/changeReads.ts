import { mergeInChangeOrder } from '../paging/changePaging.js';
import type { ChangeReads, ChangeRow, ResumeBounds } from '../engine/readSteps.js';
import type { Db } from './db.js';
import { recordV1 } from './recordTexts.js';

/** The parameters of a read in change order (see `resumeBounds`): tenant or table, bounds, rows wanted. */
type ChangeParams = {
  owner: number;
  fs: number;
  fu: number;
  fm: number;
  fp: number;
  rs: number;
  rp: number;
  n: number;
  empty?: string;
};

const params = (owner: number, { fields: [fs, fu, fm, fp], records: [rs, rp] }: ResumeBounds, n: number) => ({ owner, fs, fu, fm, fp, rs, rp, n });

/**
 * The reads of incremental sync on SQLite (migration 5), prepared once per connection. A
 * reporting record changed at the later of its row's stamp and its dimension fields' stamp;
 * two streams are read, each along an index from where the walk resumes: the records whose
 * dimension fields changed last (by the fields' stamp, user, month, then by position), and the
 * records whose own row changed last (by stamp and position). A record whose fields and row
 * share a stamp comes from the second. Both are read in one read transaction (one snapshot)
 * and merged here, which costs less than one statement merging them with an ORDER BY: that
 * would copy every record into a sorter.
 */
export function changeReads(db: Db) {
  const fieldsStream = `SELECT d.stamp AS stamp, 0 AS stream, d.user_pk AS a, d.month AS b, r.pos AS c, ${recordV1('d.fragment')} AS json
    FROM dimension_values d
    JOIN reporting_records r ON r.user_pk = d.user_pk AND r.month = d.month AND r.tenant_id = @owner
    WHERE d.tenant_id = @owner AND (d.stamp, d.user_pk, d.month) >= (@fs, @fu, @fm)
      AND (d.stamp, d.user_pk, d.month, r.pos) > (@fs, @fu, @fm, @fp) AND r.stamp < d.stamp
    ORDER BY d.stamp, d.user_pk, d.month, r.pos LIMIT @n`;
  const recordStream = `SELECT r.stamp AS stamp, 1 AS stream, r.pos AS a, 0 AS b, 0 AS c, ${recordV1('ifnull(d.fragment, @empty)')} AS json
    FROM reporting_records r
    LEFT JOIN dimension_values d ON d.user_pk = r.user_pk AND d.month = r.month
    WHERE r.tenant_id = @owner AND (r.stamp, r.pos) > (@rs, @rp) AND r.stamp >= ifnull(d.stamp, 0)
    ORDER BY r.stamp, r.pos LIMIT @n`;
  const fieldRows = db.prepare<ChangeParams, ChangeRow>(fieldsStream).raw();
  const recordRows = db.prepare<ChangeParams, ChangeRow>(recordStream).raw();
  const reporting = db.transaction((p: ChangeParams) => mergeInChangeOrder(fieldRows.all(p), recordRows.all(p), p.n));
  const tableOf = db.prepare<[number, string], number>('SELECT pk FROM data_tables WHERE tenant_id = ? AND key = ?').pluck();
  const tableRecords = db
    .prepare<ChangeParams, ChangeRow>(
      `SELECT stamp, 1, pos, 0, 0, body FROM table_records
       WHERE table_pk = @owner AND (stamp, pos) > (@rs, @rp) ORDER BY stamp, pos LIMIT @n`,
    )
    .raw();
  const state = db.prepare<[number], { seq: number; resyncFrom: number }>('SELECT sync_seq AS seq, resync_from AS resyncFrom FROM tenants WHERE id = ?');
  // A table's records replaced by an import (migration 12) call for a new sync of that table only.
  const tableState = db.prepare<[number], { seq: number; resyncFrom: number }>(
    'SELECT t.sync_seq AS seq, max(t.resync_from, d.resync_from) AS resyncFrom FROM data_tables d JOIN tenants t ON t.id = d.tenant_id WHERE d.pk = ?',
  );

  return {
    /** The statement reporting records of a tenant (`emptyFragment`: see keys.ts Principal). */
    reporting: (tenantId: number, emptyFragment: string): ChangeReads => ({
      state: () => state.get(tenantId)!,
      rows: (bounds, n) => reporting({ ...params(tenantId, bounds, n), empty: emptyFragment }),
    }),
    /** The records of a data table of a tenant, or `undefined` when the tenant has no such table. */
    tableRecords(tenantId: number, tableKey: string): ChangeReads | undefined {
      const tablePk = tableOf.get(tenantId, tableKey);
      if (tablePk === undefined) return undefined;
      return {
        state: () => tableState.get(tablePk)!,
        rows: (bounds, n) => tableRecords.all({ ...params(tablePk, bounds, n) }),
      };
    },
  };
}
