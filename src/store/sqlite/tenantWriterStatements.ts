import type { ManagerEdge } from '../../domain/bulkChecks.js';
import type { Db } from './db.js';

/** The statements of a {@link TenantWriter}, prepared once per writer. */
export function tenantWriterStatements(db: Db) {
  return {
    metricKeys: db.prepare<[number], string>('SELECT key FROM metrics WHERE tenant_id = ? ORDER BY position').pluck(),
    dimensions: db.prepare<[number], [string, number]>('SELECT key, pk FROM dimensions WHERE tenant_id = ? ORDER BY position').raw(),
    insertMetric: db.prepare<[number, string, number]>('INSERT INTO metrics (tenant_id, key, position) VALUES (?, ?, ?)'),
    insertDimension: db.prepare<[number, string, number]>('INSERT INTO dimensions (tenant_id, key, position) VALUES (?, ?, ?)'),
    /** Adds a new metric (`,"key":null,"key_currency":`) to every stored body, valued null in the line's payment currency. */
    addMetricToBodies: db.prepare<[string, number, number]>(
      `UPDATE reporting_records SET body = body || ? || json_quote(json_extract(body || '}', '$.payment_currency')), stamp = ?
       WHERE tenant_id = ?`,
    ),
    upsertUser: db.prepare<[number, string, string, string], number>(
      `INSERT INTO users (tenant_id, id, email, json) VALUES (?, ?, ?, ?)
       ON CONFLICT (tenant_id, id) DO UPDATE SET email = excluded.email, json = excluded.json
       RETURNING pk`,
    ).pluck(),
    userByEmail: db.prepare<[number, string], string>('SELECT id FROM users WHERE tenant_id = ? AND email = ? COLLATE NOCASE').pluck(),
    userIdentity: db.prepare<[number, string], [number, string]>('SELECT pk, json FROM users WHERE tenant_id = ? AND id = ?').raw(),
    rerenderUserInRecords: db.prepare<[string, string, number, number]>('UPDATE reporting_records SET body = replace(body, ?, ?), stamp = ? WHERE user_pk = ?'),
    managerEdges: db.prepare<[number], ManagerEdge>(
      `SELECT a.user_pk AS user, a.manager_pk AS manager, a.start_month AS start, a.end_month AS "end"
       FROM manager_attributions a JOIN users u ON u.pk = a.user_pk WHERE u.tenant_id = ?`,
    ),
    recordCount: db.prepare<[number], number>('SELECT ifnull(max(pos) + 1, 0) FROM reporting_records WHERE tenant_id = ?').pluck(),
    recordPos: db.prepare<[number, string], number>('SELECT pos FROM reporting_records WHERE tenant_id = ? AND id = ?').pluck(),
    insertRecord: db.prepare<[number, number, string, number, number, string, number]>(
      'INSERT INTO reporting_records (tenant_id, pos, id, user_pk, month, body, stamp) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    /** Updates a record whose content changed (an unchanged one keeps its stamp). */
    updateRecord: db.prepare<{ userPk: number; month: number; body: string; stamp: number; tenantId: number; pos: number }>(
      `UPDATE reporting_records SET user_pk = @userPk, month = @month, body = @body, stamp = @stamp
       WHERE tenant_id = @tenantId AND pos = @pos AND (user_pk, month, body) IS NOT (@userPk, @month, @body)`,
    ),
    /** A new dimension fields row holds minus the stamp of the load that made it (migration 5). */
    ensureDimensionValue: db.prepare<[number, number, number, number]>(
      `INSERT INTO dimension_values (tenant_id, user_pk, month, fragment, stamp) VALUES (?, ?, ?, '}', -?) ON CONFLICT DO NOTHING`,
    ),
    insertTable: db.prepare<[number, string, string, string], number>('INSERT INTO data_tables (tenant_id, key, name, fields) VALUES (?, ?, ?, ?) RETURNING pk').pluck(),
    table: db.prepare<[number, string], { pk: number; name: string; fields: string }>('SELECT pk, name, fields FROM data_tables WHERE tenant_id = ? AND key = ?'),
    renameTable: db.prepare<[string, number]>('UPDATE data_tables SET name = ? WHERE pk = ?'),
    tableRecordCount: db.prepare<[number], number>('SELECT ifnull(max(pos) + 1, 0) FROM table_records WHERE table_pk = ?').pluck(),
    tableRecordPos: db.prepare<[number, string], number>('SELECT pos FROM table_records WHERE table_pk = ? AND id = ?').pluck(),
    insertTableRecord: db.prepare<[number, number, string, string, number]>('INSERT INTO table_records (table_pk, pos, id, body, stamp) VALUES (?, ?, ?, ?, ?)'),
    updateTableRecord: db.prepare<[string, number, number, number, string]>('UPDATE table_records SET body = ?, stamp = ? WHERE table_pk = ? AND pos = ? AND body IS NOT ?'),
  };
}

export type TenantWriterStatements = ReturnType<typeof tenantWriterStatements>;

/** Whether `error` is the store refusing a second row with the same unique key (a duplicate id). */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'SQLITE_CONSTRAINT_UNIQUE';
}
