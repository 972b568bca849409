import type { Db } from './db.js';

/**
 * A source of pre-rendered JSON records in a stable order, read by position (see the
 * invariants in migrations.ts): `rows(from, n)` returns up to `n` JSON texts from position
 * `from`, `total()` the number of records. One interface serves every paged operation.
 */
export interface PagedSource {
  rows(from: number, n: number): string[];
  total(): number;
  /**
   * Present on sources whose positions are not stored keys (reading from a position means
   * skipping rows): they also read by key, so that a walker following `next` seeks (D2).
   */
  seek?: KeySeek;
}

/** A JSON record and its key in the source's order (a text only the source reads). */
export type KeyedRow = [row: string, key: string];

export interface KeySeek {
  /** `rows(from, n)`, each row with its key. */
  keyedRows(from: number, n: number): KeyedRow[];
  /** Up to `n` rows that follow the row whose key is `key`; `undefined` when `key` is not one of this source's keys. */
  rowsAfter(key: string, n: number): KeyedRow[] | undefined;
}

/** Prepares the reads of the paged operations once per database connection. */
export function pagedReads(db: Db) {
  const reportingRows = db
    .prepare(
      `SELECT r.body || ifnull(d.fragment, ?)
       FROM reporting_records r
       LEFT JOIN dimension_values d ON d.user_pk = r.user_pk AND d.month = r.month
       WHERE r.tenant_id = ? AND r.pos >= ?
       ORDER BY r.pos
       LIMIT ?`,
    )
    .pluck();
  const reportingTotal = db.prepare('SELECT ifnull(max(pos) + 1, 0) FROM reporting_records WHERE tenant_id = ?').pluck();
  const tableOf = db.prepare('SELECT pk FROM data_tables WHERE tenant_id = ? AND key = ?').pluck();
  const tableRows = db.prepare('SELECT body FROM table_records WHERE table_pk = ? AND pos >= ? ORDER BY pos LIMIT ?').pluck();
  const tableTotal = db.prepare('SELECT ifnull(max(pos) + 1, 0) FROM table_records WHERE table_pk = ?').pluck();

  return {
    /** The statement reporting records of a tenant (`emptyFragment`: see keys.ts Principal). */
    reporting(tenantId: number, emptyFragment: string): PagedSource {
      return {
        rows: (from, n) => reportingRows.all(emptyFragment, tenantId, from, n) as string[],
        total: () => reportingTotal.get(tenantId) as number,
      };
    },
    /** The records of a data table of a tenant, or `undefined` when the tenant has no such table. */
    tableRecords(tenantId: number, tableKey: string): PagedSource | undefined {
      const tablePk = tableOf.get(tenantId, tableKey) as number | undefined;
      if (tablePk === undefined) return undefined;
      return {
        rows: (from, n) => tableRows.all(tablePk, from, n) as string[],
        total: () => tableTotal.get(tablePk) as number,
      };
    },
  };
}

export type PagedReads = ReturnType<typeof pagedReads>;
