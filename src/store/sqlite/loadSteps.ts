import type { ManagerEdge } from '../../domain/bulkChecks.js';
import { asciiLowerCase } from '../../domain/emailKey.js';
import type { LoadSteps, StoredUser } from '../engine/loadSteps.js';
import { attributionSteps } from './bulkSteps.js';
import type { Db } from './db.js';
import { fieldSteps } from './dimensionValues.js';
import { stampTime } from './changeStamps.js';
import { bothTexts, USER_PLACE, userRerender } from './recordTexts.js';
import { statementSteps } from './statementSteps.js';
import { directLookups } from './writerCache.js';

/**
 * The steps of a load into one tenant on SQLite (../loading/tenantLoader.ts), inside the load's
 * write transaction: a prepared statement per row, which in process costs its B-tree seeks
 * and no round trip.
 */
export function loadSteps(db: Db, tenantId: number): LoadSteps {
  const s = statements(db);
  const userRow = (row: { pk: number; id: string; email: string; json: string }): StoredUser => ({
    pk: row.pk,
    id: row.id,
    emailKey: asciiLowerCase(row.email),
    json: row.json,
  });
  return {
    ...attributionSteps(db, directLookups(db))(tenantId),
    ...fieldSteps(db, tenantId),
    ...statementSteps(db, tenantId),
    metricKeys: () => s.metricKeys.all(tenantId),
    dimensions: () => s.dimensions.all(tenantId),
    insertMetric: (key, position) => void s.insertMetric.run(tenantId, key, position),
    addMetricToBodies: (fragment, fragmentV2, stamp) => s.addMetricToBodies({ fragment, fragmentV2, stamp, tenantId }),
    insertDimension: (key, position) => void s.insertDimension.run(tenantId, key, position),

    usersByIdOrEmail(ids, emailKeys) {
      const found = new Map<number, StoredUser>();
      for (const id of ids) for (const row of s.userById.all(tenantId, id)) found.set(row.pk, userRow(row));
      for (const key of emailKeys) for (const row of s.userByEmail.all(tenantId, key)) found.set(row.pk, userRow(row));
      return [...found.values()];
    },
    usersById: (ids) => ids.flatMap((id) => s.userById.all(tenantId, id).map(userRow)),
    userIdByEmail: (email) => s.userByEmail.get(tenantId, email)?.id,
    upsertUsers: (users) => users.map((user) => ({ id: user.id, pk: s.upsertUser.get(tenantId, user.id, user.email, user.json)! })),
    setUserExtras(rows) {
      for (const { pk, attributes, archivedAfter } of rows) s.setUserExtras.run(attributes, archivedAfter, pk);
    },
    rerenderUsersInRecords(changes, stamp) {
      for (const change of changes) s.rerenderUserInRecords({ ...change, stamp });
    },
    managerEdges: () => s.managerEdges.all(tenantId),

    recordCount: () => s.recordCount.get(tenantId)!,
    recordPositions: (ids) => ids.flatMap((id) => s.recordPosition.all(tenantId, id)),
    insertRecords: (rows, stamp) => insertedIds(rows, (row) => s.insertRecord({ ...row, tenantId, stamp })),
    updateRecords(rows, stamp) {
      for (const row of rows) s.updateRecord({ ...row, stamp, tenantId });
    },
    ensureFieldRows(pairs, stamp) {
      for (const { userPk, month } of pairs) s.ensureFieldRow.run({ tenantId, userPk, month, stamp });
    },

    table: (key) => s.table.get(tenantId, key),
    insertTable: (key, name, fieldsJson) => s.insertTable.get(tenantId, key, name, fieldsJson)!,
    renameTable: (tablePk, name) => void s.renameTable.run(name, tablePk),
    tableRecordCount: (tablePk) => s.tableRecordCount.get(tablePk)!,
    tableRecordPositions: (tablePk, ids) => ids.flatMap((id) => s.tableRecordPosition.all(tablePk, id)),
    insertTableRecords: (tablePk, rows, stamp) => insertedIds(rows, (row) => s.insertTableRecord.run({ ...row, tablePk, stamp })),
    updateTableRecords(tablePk, rows, stamp) {
      for (const row of rows) s.updateTableRecord.run({ ...row, tablePk, stamp });
    },
  };
}

type UserColumns = { pk: number; id: string; email: string; json: string };

/** A record row of a load: its v1 text, rendered with its user's current object, and its v2 text. */
type RecordRow = { pos: number; userPk: number; month: number; body: string; bodyV2: string };

/**
 * Inserts `rows` in order, each by `insert`, until one's id is stored already (the unique index
 * on ids refuses it): the ids inserted before it. A plain INSERT whose refusal is caught costs
 * less than SQLite's ON CONFLICT ... RETURNING on every row; the loader then refuses the id given
 * twice, and the load is rolled back.
 */
function insertedIds<T extends { id: string }>(rows: readonly T[], insert: (row: T) => unknown): string[] {
  const inserted: string[] = [];
  for (const row of rows) {
    try {
      insert(row);
    } catch (error) {
      if ((error as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE') break;
      throw error;
    }
    inserted.push(row.id);
  }
  return inserted;
}

/** The tenant of the table `@tablePk` (table records carry no tenant). */
const TENANT_OF_TABLE = '(SELECT tenant_id FROM data_tables WHERE pk = @tablePk)';

function statements(db: Db) {
  return {
    metricKeys: db.prepare<[number], string>('SELECT key FROM metrics WHERE tenant_id = ? ORDER BY position').pluck(),
    dimensions: db.prepare<[number], [string, number]>('SELECT key, pk FROM dimensions WHERE tenant_id = ? ORDER BY position').raw(),
    insertMetric: db.prepare<[number, string, number]>('INSERT INTO metrics (tenant_id, key, position) VALUES (?, ?, ?)'),
    insertDimension: db.prepare<[number, string, number]>('INSERT INTO dimensions (tenant_id, key, position) VALUES (?, ?, ?)'),
    addMetricToBodies: bothTexts<{ fragment: string; fragmentV2: string; stamp: number; tenantId: number }>(
      db,
      `UPDATE reporting_records SET body = body || @fragment || ((body || '}') -> '$.payment_currency'), stamp = @stamp WHERE tenant_id = @tenantId`,
      `UPDATE reporting_records_v2 SET body = body || @fragmentV2 || ((body || '}') -> '$."standard.payment".currency') || '}',
         changed_at = ${stampTime('@tenantId', '@stamp')}
       WHERE tenant_id = @tenantId`,
    ),
    userById: db.prepare<[number, string], UserColumns>('SELECT pk, id, email, json FROM users WHERE tenant_id = ? AND id = ?'),
    userByEmail: db.prepare<[number, string], UserColumns>('SELECT pk, id, email, json FROM users WHERE tenant_id = ? AND email = ? COLLATE NOCASE'),
    upsertUser: db
      .prepare<[number, string, string, string], number>(
        `INSERT INTO users (tenant_id, id, email, json) VALUES (?, ?, ?, ?)
         ON CONFLICT (tenant_id, id) DO UPDATE SET email = excluded.email, json = excluded.json
         RETURNING pk`,
      )
      .pluck(),
    setUserExtras: db.prepare<[string | null, number | null, number]>(
      'UPDATE users SET attributes = coalesce(?, attributes), archived_after = coalesce(?, archived_after) WHERE pk = ?',
    ),
    rerenderUserInRecords: userRerender(db),
    managerEdges: db.prepare<[number], ManagerEdge>(
      `SELECT a.user_pk AS user, a.manager_pk AS manager, a.start_month AS start, a.end_month AS "end"
       FROM manager_attributions a JOIN users u ON u.pk = a.user_pk WHERE u.tenant_id = ?`,
    ),
    recordCount: db.prepare<[number], number>('SELECT ifnull(max(pos) + 1, 0) FROM reporting_records WHERE tenant_id = ?').pluck(),
    recordPosition: db.prepare<[number, string], { id: string; pos: number }>('SELECT id, pos FROM reporting_records WHERE tenant_id = ? AND id = ?'),
    insertRecord: bothTexts<RecordRow & { tenantId: number; id: string; stamp: number }>(
      db,
      `INSERT INTO reporting_records (tenant_id, pos, id, user_pk, month, body, user_at, user_len, user_rev, stamp)
       VALUES (@tenantId, @pos, @id, @userPk, @month, @body, ${USER_PLACE}, @stamp)`,
      `INSERT INTO reporting_records_v2 (tenant_id, pos, user_pk, month, body, changed_at)
       VALUES (@tenantId, @pos, @userPk, @month, @bodyV2, ${stampTime('@tenantId', '@stamp')})`,
    ),
    /** Updates a record whose content changed (an unchanged one keeps its stamp). */
    updateRecord: bothTexts<RecordRow & { stamp: number; tenantId: number }>(
      db,
      `UPDATE reporting_records SET user_pk = @userPk, month = @month, body = @body, (user_at, user_len, user_rev) = (${USER_PLACE}), stamp = @stamp
       WHERE tenant_id = @tenantId AND pos = @pos AND (user_pk, month, body) IS NOT (@userPk, @month, @body)`,
      `UPDATE reporting_records_v2 SET user_pk = @userPk, month = @month, body = @bodyV2, changed_at = ${stampTime('@tenantId', '@stamp')}
       WHERE tenant_id = @tenantId AND pos = @pos`,
    ),
    /** A new dimension fields row holds minus the stamp of the load that made it (migration 5). */
    ensureFieldRow: db.prepare<{ tenantId: number; userPk: number; month: number; stamp: number }>(
      `INSERT INTO dimension_values (tenant_id, user_pk, month, fragment, stamp) VALUES (@tenantId, @userPk, @month, '}', -@stamp) ON CONFLICT DO NOTHING`,
    ),
    table: db.prepare<[number, string], { pk: number; name: string; fields: string }>('SELECT pk, name, fields FROM data_tables WHERE tenant_id = ? AND key = ?'),
    insertTable: db.prepare<[number, string, string, string], number>('INSERT INTO data_tables (tenant_id, key, name, fields) VALUES (?, ?, ?, ?) RETURNING pk').pluck(),
    renameTable: db.prepare<[string, number]>('UPDATE data_tables SET name = ? WHERE pk = ?'),
    tableRecordCount: db.prepare<[number], number>('SELECT ifnull(max(pos) + 1, 0) FROM table_records WHERE table_pk = ?').pluck(),
    tableRecordPosition: db.prepare<[number, string], { id: string; pos: number }>('SELECT id, pos FROM table_records WHERE table_pk = ? AND id = ?'),
    insertTableRecord: db.prepare<{ tablePk: number; pos: number; id: string; body: string; bodyV2: string; stamp: number }>(
      `INSERT INTO table_records (table_pk, pos, id, body, body_v2, stamp, changed_at)
       VALUES (@tablePk, @pos, @id, @body, @bodyV2, @stamp, ${stampTime(TENANT_OF_TABLE, '@stamp')})`,
    ),
    updateTableRecord: db.prepare<{ tablePk: number; pos: number; body: string; bodyV2: string; stamp: number }>(
      `UPDATE table_records SET body = @body, body_v2 = @bodyV2, stamp = @stamp, changed_at = ${stampTime(TENANT_OF_TABLE, '@stamp')}
       WHERE table_pk = @tablePk AND pos = @pos AND body IS NOT @body`,
    ),
  };
}
