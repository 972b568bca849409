import type { StoredImport, StoredImportTable } from '../../domain/importJson.js';
import type { ImportSteps } from '../engine/apiWriteSteps.js';
import type { PendingImport } from '../vocabulary/writeShapes.js';
import { firstRow, rowsOf, run, statement, type Queryable } from './connection.js';

type ImportState = { status: 'scheduled' | 'started' | 'finished'; launchAt: number; owner: string | null; heartbeatAt: number | null };

const table = statement<[number, string], { pk: number; fields: string }>('SELECT pk, fields FROM data_tables WHERE tenant_id = $1 AND key = $2');
const scheduled = statement<[number], { pk: number; id: string }>(
  `SELECT pk, id FROM imports WHERE tenant_id = $1 AND status = 'scheduled' ORDER BY pk DESC LIMIT 1 FOR UPDATE`,
);
const create = statement<[number, string, string, number], { pk: number }>(
  `INSERT INTO imports (tenant_id, id, status, created_at, launch_at) VALUES ($1, $2, 'scheduled', $3, $4) RETURNING pk`,
);
const setLaunchAt = statement<[number, number, number]>('UPDATE imports SET launch_at = $3 WHERE tenant_id = $1 AND pk = $2');
// From the import's row rather than VALUES: Citus refuses a subquery in INSERT ... VALUES, and
// routes an INSERT ... SELECT from a co-located table, by its tenant, to the tenant's node.
const addLines = statement<[number, number, string, boolean, number], { before: number }>(
  `INSERT INTO import_tables (tenant_id, import_pk, data_table_key, position, replace_all, lines, status)
   SELECT i.tenant_id, i.pk, $3, (SELECT count(*) FROM import_tables WHERE tenant_id = $1 AND import_pk = $2), $4, $5, 'scheduled'
   FROM imports i WHERE i.tenant_id = $1 AND i.pk = $2
   ON CONFLICT (tenant_id, import_pk, data_table_key)
   DO UPDATE SET replace_all = import_tables.replace_all OR excluded.replace_all, lines = import_tables.lines + excluded.lines
   RETURNING lines - $5 AS before`,
);
const stage = statement<[number, number, string, number, string]>(
  'INSERT INTO import_lines (tenant_id, import_pk, data_table_key, first_line, json) VALUES ($1, $2, $3, $4, $5)',
);
const state = statement<[number, number], ImportState>(
  'SELECT status, launch_at AS "launchAt", owner, heartbeat_at AS "heartbeatAt" FROM imports WHERE tenant_id = $1 AND pk = $2',
);
const claim = statement<[number, number, string, number, string]>(
  `UPDATE imports SET status = 'started', owner = $3, heartbeat_at = $4, launched_at = coalesce(launched_at, $5) WHERE tenant_id = $1 AND pk = $2`,
);
const unfinished = statement<[number, number], { key: string; all: boolean }>(
  `SELECT data_table_key AS key, replace_all AS "all" FROM import_tables WHERE tenant_id = $1 AND import_pk = $2 AND status <> 'finished' ORDER BY position`,
);
const staged = statement<[number, number, string], { json: string }>(
  'SELECT json FROM import_lines WHERE tenant_id = $1 AND import_pk = $2 AND data_table_key = $3 ORDER BY first_line',
);
const finishTable = statement<[number, number, string, number | null, string | null, string | null]>(
  `UPDATE import_tables SET status = 'finished', records = $4, error = $5, ignored_fields = $6 WHERE tenant_id = $1 AND import_pk = $2 AND data_table_key = $3`,
);
const dropLines = statement<[number, number, string]>('DELETE FROM import_lines WHERE tenant_id = $1 AND import_pk = $2 AND data_table_key = $3');
const finish = statement<[number, number, string]>(`UPDATE imports SET status = 'finished', finished_at = $3 WHERE tenant_id = $1 AND pk = $2`);
const removed = statement<[number, number, string]>(
  `INSERT INTO removed_records (tenant_id, structure, id, pos) SELECT tenant_id, $3, id, pos FROM table_records WHERE tenant_id = $1 AND table_pk = $2
   ON CONFLICT (tenant_id, structure, id) DO UPDATE SET pos = excluded.pos`,
);
const clear = statement<[number, number]>('DELETE FROM table_records WHERE tenant_id = $1 AND table_pk = $2');
const resyncFrom = statement<[number, number, number]>('UPDATE data_tables SET resync_from = $3 WHERE tenant_id = $1 AND pk = $2');

/** The imports of data tables (migrations 9, 16 and 17, ../imports/tableImports.ts) on PostgreSQL, inside the tenant's write transaction. */
export function importSteps(db: Queryable, tenantId: number): ImportSteps {
  return {
    table: (key) => firstRow(db, table, tenantId, key),
    scheduled: () => firstRow(db, scheduled, tenantId),
    create: async (id, createdAt, launchAt) => (await firstRow(db, create, tenantId, id, createdAt, launchAt))!.pk,
    setLaunchAt: async (importPk, launchAt) => void (await run(db, setLaunchAt, tenantId, importPk, launchAt)),
    addLines: async (importPk, key, all, lines) => (await firstRow(db, addLines, tenantId, importPk, key, all, lines))!.before,
    stage: async (importPk, key, firstLine, json) => void (await run(db, stage, tenantId, importPk, key, firstLine, json)),
    state: (importPk) => firstRow(db, state, tenantId, importPk),
    claim: async (importPk, owner, at, launchedAt) => void (await run(db, claim, tenantId, importPk, owner, at, launchedAt)),
    unfinished: (importPk) => rowsOf(db, unfinished, tenantId, importPk),
    staged: async (importPk, key) => (await rowsOf(db, staged, tenantId, importPk, key)).map((row) => row.json),
    async finishTable(importPk, key, records, error, ignored) {
      await run(db, finishTable, tenantId, importPk, key, records, error, ignored);
      await run(db, dropLines, tenantId, importPk, key);
    },
    finish: async (importPk, finishedAt) => void (await run(db, finish, tenantId, importPk, finishedAt)),
    async clearTable(tablePk, key, stamp) {
      await run(db, removed, tenantId, tablePk, key);
      await run(db, clear, tenantId, tablePk);
      await run(db, resyncFrom, tenantId, tablePk, stamp);
    },
  };
}

const byId = statement<[number, string], { pk: number; id: string; status: StoredImport['status']; createdAt: string; launchedAt: string | null; finishedAt: string | null }>(
  'SELECT pk, id, status, created_at AS "createdAt", launched_at AS "launchedAt", finished_at AS "finishedAt" FROM imports WHERE tenant_id = $1 AND id = $2',
);
const tables = statement<[number, number], StoredImportTable>(
  'SELECT data_table_key AS key, status, records, error, ignored_fields AS ignored FROM import_tables WHERE tenant_id = $1 AND import_pk = $2 ORDER BY position',
);
/** Every tenant's unfinished imports (a scan of the partial index, on each shard where distributed). */
const pending = statement<[], PendingImport>(
  `SELECT tenant_id AS "tenantId", pk AS "importPk", status, launch_at AS "launchAt", owner, heartbeat_at AS "heartbeatAt"
   FROM imports WHERE status <> 'finished' ORDER BY pk`,
);

/** The reads of imports on PostgreSQL. */
export const importReads = {
  /** The import and its tables: its tables are written with its status, so a read of them after its row shows no table older than it. */
  async importOf(db: Queryable, tenantId: number, id: string): Promise<StoredImport | undefined> {
    const found = await firstRow(db, byId, tenantId, id);
    if (!found) return undefined;
    const { pk, ...row } = found;
    return { ...row, tables: await rowsOf(db, tables, tenantId, pk) };
  },
  pendingImports: (db: Queryable) => rowsOf(db, pending),
};
