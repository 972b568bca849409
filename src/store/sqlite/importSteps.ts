import type { StoredImport, StoredImportTable } from '../../domain/importJson.js';
import type { ImportSteps } from '../engine/apiWriteSteps.js';
import type { PendingImport } from '../vocabulary/writeShapes.js';
import type { Db } from './db.js';

/** The imports of data tables (migrations 12 and 14, ../imports/tableImports.ts) on SQLite, prepared once per connection. */
export function importSteps(db: Db): (tenantId: number) => ImportSteps {
  const table = db.prepare<[number, string], { pk: number; fields: string }>('SELECT pk, fields FROM data_tables WHERE tenant_id = ? AND key = ?');
  const scheduled = db.prepare<[number], { pk: number; id: string }>(
    `SELECT pk, id FROM imports WHERE tenant_id = ? AND status = 'scheduled' ORDER BY pk DESC LIMIT 1`,
  );
  const create = db
    .prepare<[number, string, string, number], number>(`INSERT INTO imports (tenant_id, id, status, created_at, launch_at) VALUES (?, ?, 'scheduled', ?, ?) RETURNING pk`)
    .pluck();
  const setLaunchAt = db.prepare<[number, number]>('UPDATE imports SET launch_at = ? WHERE pk = ?');
  const addLines = db
    .prepare<{ importPk: number; table: string; all: number; lines: number }, number>(
      `INSERT INTO import_tables (import_pk, data_table_key, position, replace_all, lines, status)
       VALUES (@importPk, @table, (SELECT count(*) FROM import_tables WHERE import_pk = @importPk), @all, @lines, 'scheduled')
       ON CONFLICT DO UPDATE SET replace_all = replace_all OR excluded.replace_all, lines = lines + excluded.lines
       RETURNING lines - @lines`,
    )
    .pluck();
  const stage = db.prepare<[number, string, number, string]>('INSERT INTO import_lines (import_pk, data_table_key, first_line, json) VALUES (?, ?, ?, ?)');
  const state = db.prepare<[number, number], { status: 'scheduled' | 'started' | 'finished'; launchAt: number; owner: string | null; heartbeatAt: number | null }>(
    'SELECT status, launch_at AS launchAt, owner, heartbeat_at AS heartbeatAt FROM imports WHERE pk = ? AND tenant_id = ?',
  );
  const claim = db.prepare<{ pk: number; owner: string; at: number; launchedAt: string }>(
    `UPDATE imports SET status = 'started', owner = @owner, heartbeat_at = @at, launched_at = ifnull(launched_at, @launchedAt) WHERE pk = @pk`,
  );
  const unfinished = db.prepare<[number], { key: string; all: number }>(
    `SELECT data_table_key AS key, replace_all AS "all" FROM import_tables WHERE import_pk = ? AND status <> 'finished' ORDER BY position`,
  );
  const staged = db.prepare<[number, string], string>('SELECT json FROM import_lines WHERE import_pk = ? AND data_table_key = ? ORDER BY first_line').pluck();
  const finishTable = db.prepare<{ importPk: number; table: string; records: number | null; error: string | null; ignored: string | null }>(
    `UPDATE import_tables SET status = 'finished', records = @records, error = @error, ignored_fields = @ignored
     WHERE import_pk = @importPk AND data_table_key = @table`,
  );
  const dropLines = db.prepare<[number, string]>('DELETE FROM import_lines WHERE import_pk = ? AND data_table_key = ?');
  const finish = db.prepare<[string, number]>(`UPDATE imports SET status = 'finished', finished_at = ? WHERE pk = ?`);
  const removed = db.prepare<{ tenantId: number; tablePk: number; key: string }>(
    `INSERT INTO removed_records (tenant_id, structure, id, pos) SELECT @tenantId, @key, id, pos FROM table_records WHERE table_pk = @tablePk
     ON CONFLICT DO UPDATE SET pos = excluded.pos`,
  );
  const clear = db.prepare<[number]>('DELETE FROM table_records WHERE table_pk = ?');
  const resyncFrom = db.prepare<[number, number]>('UPDATE data_tables SET resync_from = ? WHERE pk = ?');

  return (tenantId) => ({
    table: (key) => table.get(tenantId, key),
    scheduled: () => scheduled.get(tenantId),
    create: (id, createdAt, launchAt) => create.get(tenantId, id, createdAt, launchAt)!,
    setLaunchAt: (importPk, launchAt) => void setLaunchAt.run(launchAt, importPk),
    addLines: (importPk, tableKey, all, lines) => addLines.get({ importPk, table: tableKey, all: all ? 1 : 0, lines })!,
    stage: (importPk, tableKey, firstLine, json) => void stage.run(importPk, tableKey, firstLine, json),
    state: (importPk) => state.get(importPk, tenantId),
    claim: (pk, owner, at, launchedAt) => void claim.run({ pk, owner, at, launchedAt }),
    unfinished: (importPk) => unfinished.all(importPk).map((row) => ({ key: row.key, all: row.all === 1 })),
    staged: (importPk, tableKey) => staged.all(importPk, tableKey),
    finishTable(importPk, tableKey, records, error, ignored) {
      finishTable.run({ importPk, table: tableKey, records, error, ignored });
      dropLines.run(importPk, tableKey);
    },
    finish: (importPk, finishedAt) => void finish.run(finishedAt, importPk),
    clearTable(tablePk, key, stamp) {
      removed.run({ tenantId, tablePk, key });
      clear.run(tablePk);
      resyncFrom.run(stamp, tablePk);
    },
  });
}

/** The reads of imports on SQLite: one import of a tenant with its tables, and every unfinished import. */
export function importReads(db: Db) {
  const byId = db.prepare<[number, string], { pk: number; id: string; status: StoredImport['status']; createdAt: string; launchedAt: string | null; finishedAt: string | null }>(
    'SELECT pk, id, status, created_at AS createdAt, launched_at AS launchedAt, finished_at AS finishedAt FROM imports WHERE tenant_id = ? AND id = ?',
  );
  const tables = db.prepare<[number], StoredImportTable>(
    'SELECT data_table_key AS key, status, records, error, ignored_fields AS ignored FROM import_tables WHERE import_pk = ? ORDER BY position',
  );
  const pending = db.prepare<[], PendingImport>(
    `SELECT tenant_id AS tenantId, pk AS importPk, status, launch_at AS launchAt, owner, heartbeat_at AS heartbeatAt
     FROM imports WHERE status <> 'finished' ORDER BY pk`,
  );
  return {
    /** The import and its tables, read in one transaction. */
    importOf: db.transaction((tenantId: number, id: string): StoredImport | undefined => {
      const found = byId.get(tenantId, id);
      if (!found) return undefined;
      const { pk, ...row } = found;
      return { ...row, tables: tables.all(pk) };
    }),
    pendingImports: (): PendingImport[] => pending.all(),
  };
}
