import type { JoinedRows, PagedSource } from '../engine/pagedSource.js';
import type { Db } from './db.js';
import { recordV1 } from './recordTexts.js';

/** A paged source of this engine: every answer is there when the call returns. */
export interface SqlitePagedSource extends PagedSource {
  rows(from: number, n: number): string[];
  total(): number;
  joined(from: number, n: number): JoinedRows;
}

/** The parameters of a page read: the owner (tenant or table), the first position, how many rows. */
type PageParams = { owner: number; from: number; n: number; empty?: string; tenant?: number };

/** Prepares the reads of the paged operations once per database connection. */
export function pagedReads(db: Db) {
  const reportingRecord = recordV1('ifnull(d.fragment, @empty)');
  const reportingFrom = `reporting_records r
       LEFT JOIN dimension_values d ON d.user_pk = r.user_pk AND d.month = r.month
       WHERE r.tenant_id = @owner AND r.pos >= @from`;
  const reportingRows = db.prepare<PageParams, string>(`SELECT ${reportingRecord} FROM ${reportingFrom} ORDER BY r.pos LIMIT @n`).pluck();
  const reportingJoined = prepareJoinedPage(db, joinedPage(reportingRecord, reportingFrom, 'reporting_records', 'tenant_id'), 'tenant_id');
  const reportingTotal = db.prepare<[number], number>('SELECT ifnull(max(pos) + 1, 0) FROM reporting_records WHERE tenant_id = ?').pluck();
  const tableOf = db.prepare<[number, string], number>('SELECT pk FROM data_tables WHERE tenant_id = ? AND key = ?').pluck();
  const tableFrom = 'table_records r WHERE r.table_pk = @owner AND r.pos >= @from';
  const tableRows = db.prepare<PageParams, string>(`SELECT r.body FROM ${tableFrom} ORDER BY r.pos LIMIT @n`).pluck();
  const tableJoined = prepareJoinedPage(db, joinedPage('r.body', tableFrom, 'table_records', 'table_pk'), 'table_pk');
  const tableTotal = db.prepare<[number], number>('SELECT ifnull(max(pos) + 1, 0) FROM table_records WHERE table_pk = ?').pluck();
  const joined = ([count, json, more]: JoinedRow): JoinedRows => ({ count, json: json ?? Buffer.alloc(0), more: more === 1 });

  return {
    /** The statement reporting records of a tenant (`emptyFragment`: see keys.ts Principal). */
    reporting(tenantId: number, emptyFragment: string): SqlitePagedSource {
      const params = { owner: tenantId, empty: emptyFragment };
      return {
        rows: (from, n) => reportingRows.all({ ...params, from, n }),
        joined: (from, n) => joined(reportingJoined.get({ ...params, from, n })!),
        total: () => reportingTotal.get(tenantId)!,
      };
    },
    /** The records of a data table of a tenant, or `undefined` when the tenant has no such table. */
    tableRecords(tenantId: number, tableKey: string): SqlitePagedSource | undefined {
      const tablePk = tableOf.get(tenantId, tableKey);
      if (tablePk === undefined) return undefined;
      return {
        rows: (from, n) => tableRows.all({ owner: tablePk, from, n }),
        joined: (from, n) => joined(tableJoined.get({ owner: tablePk, from, n })!),
        total: () => tableTotal.get(tablePk)!,
      };
    },
  };
}

/**
 * One statement for a page of a source with dense positions: the number of records, their JSON
 * joined in position order, returned as a BLOB so the driver hands over bytes, and whether the
 * position after the page exists. One statement is one snapshot.
 *
 * Dense positions make the page the key range `[from, from + n)`, so the aggregate reads one
 * range of the clustered key, and SQLite visits a range scan's rows in key order. The order is
 * not a documented promise of `group_concat` without an `ORDER BY` argument, but that argument
 * makes SQLite copy every row into a temporary B-tree and sort it, a large part of the page's
 * cost. So the order is checked once, on the query plan, when the statement is prepared (see
 * {@link assertKeyOrderPlan}).
 */
function joinedPage(record: string, from: string, table: string, owner: string): string {
  return `SELECT count(*), CAST(group_concat(${record}, ',') AS BLOB),
            EXISTS (SELECT 1 FROM ${table} WHERE ${owner} = @owner AND pos = @from + @n)
          FROM ${from} AND r.pos < @from + @n`;
}

/**
 * Prepares a {@link joinedPage} statement after checking that its plan reads the rows in key
 * order: the outer loop is a search of `r`'s primary key by owner and position range, and
 * nothing is sorted or materialised. A SQLite that planned it otherwise fails here, at start-up,
 * rather than sending records out of order.
 */
/** A row of a {@link joinedPage} statement: the count, the joined JSON (null when no row), whether more follow (1 or 0). */
type JoinedRow = [count: number, json: Buffer | null, more: number];

export function prepareJoinedPage<Params extends PageParams = PageParams, Row extends unknown[] = JoinedRow>(db: Db, sql: string, owner: string) {
  const plan = db.prepare<PageParams, { parent: number; detail: string }>(`EXPLAIN QUERY PLAN ${sql}`).all({ owner: 0, empty: '}', from: 0, n: 1, tenant: 0 });
  const outer = plan.filter((step) => step.parent === 0).map((step) => step.detail);
  const ordered = new RegExp(`^SEARCH r USING PRIMARY KEY \\(${owner}=\\? AND pos>\\? AND pos<\\?\\)$`).test(outer[0] ?? '');
  const unsorted = plan.every((step) => !/TEMP B-TREE|MATERIALIZE|CO-ROUTINE/.test(step.detail));
  if (!ordered || !unsorted) throw new Error(`unexpected plan for a page (rows would not come in key order): ${plan.map((step) => step.detail).join('; ')}`);
  return db.prepare<Params, Row>(sql).raw();
}
