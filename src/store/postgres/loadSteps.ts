import type { ManagerEdge } from '../../domain/bulkChecks.js';
import { asciiLowerCase } from '../../domain/emailKey.js';
import type { LoadSteps } from '../engine/loadSteps.js';
import { attributionSteps } from './bulkSteps.js';
import { firstRow, rowsOf, run, statement, storable, type Queryable } from './connection.js';
import { stampTime } from './changeStamps.js';
import { fieldSteps } from './dimensionValues.js';
import { statementSteps } from './statementSteps.js';
import { newKey, tenantRows } from './tenantKeys.js';
import { headOf, headV2Of, tailOf, tailV2Of } from './recordParts.js';
import { rerenderColumns, rerenderUsersInRecords } from './userSteps.js';

/** Each user's custom attributes and last month, where given (`null`: as stored). */
const setUserExtras = statement<[number, number[], (string | null)[], (number | null)[]]>(
  `UPDATE users u SET attributes = coalesce(c.attributes, u.attributes), archived_after = coalesce(c.archived_after, u.archived_after)
   FROM unnest($2::bigint[], $3::text[], $4::integer[]) AS c (pk, attributes, archived_after)
   WHERE u.tenant_id = $1 AND u.pk = c.pk`,
);

/**
 * The statements of a load into one tenant (../loading/tenantLoader.ts). Each writes a whole
 * batch at once from arrays (`unnest`), so that a batch costs a few round trips whatever its
 * size. `$1` is always the tenant.
 */

type UserRow = { pk: number; id: string; emailKey: string; json: string };
const USER_COLUMNS = 'pk, id, email_key AS "emailKey", json';

const metricKeys = statement<[number], { key: string }>('SELECT key FROM metrics WHERE tenant_id = $1 ORDER BY position');
const dimensions = statement<[number], { key: string; pk: number }>('SELECT key, pk FROM dimensions WHERE tenant_id = $1 ORDER BY position');
const insertMetric = statement<[number, string, number]>('INSERT INTO metrics (tenant_id, key, position) VALUES ($1, $2, $3)');
const insertDimension = statement<[number, string, number]>('INSERT INTO dimensions (tenant_id, key, position) VALUES ($1, $2, $3)');
/**
 * The payment currency as the record's tail (recordParts.ts, from `,"payment":` on) holds it,
 * written again for a new metric (immutable functions only: Citus refuses others with a column
 * in an UPDATE).
 */
const PAYMENT_CURRENCY = `(('{' || substr(tail, 2) || '}')::json -> 'payment_currency')::text`;
const addMetricToBodies = statement<[number, string, string, number]>(
  `UPDATE reporting_records SET tail = tail || $2 || ${PAYMENT_CURRENCY},
     tail_v2 = tail_v2 || $3 || ${PAYMENT_CURRENCY} || '}', stamp = $4, changed_at = ${stampTime('$1', '$4')}
   WHERE tenant_id = $1`,
);

const usersByIdOrEmail = statement<[number, string[], string[]], UserRow>(
  `SELECT ${USER_COLUMNS} FROM users WHERE tenant_id = $1 AND (id = ANY ($2) OR email_key = ANY ($3))`,
);
const usersById = statement<[number, string[]], UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE tenant_id = $1 AND id = ANY ($2)`);
const userIdByEmailKey = statement<[number, string], { id: string }>('SELECT id FROM users WHERE tenant_id = $1 AND email_key = $2');
/** Upserts users in the order given (so an e-mail freed by an earlier one may be taken by a later one). */
const upsertUsers = statement<[number, string[], string[], string[]], { id: string; pk: number }>(
  `INSERT INTO users (tenant_id, pk, id, email, json)
   SELECT s.tenant_id, ${newKey('users', 'u.n')}, u.id, u.email, u.json
   FROM ${tenantRows('unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS u (id, email, json, n)')} ORDER BY u.n
   ON CONFLICT (tenant_id, id) DO UPDATE SET email = excluded.email, json = excluded.json
   RETURNING id, pk`,
);
const managerEdges = statement<[number], ManagerEdge>(
  'SELECT user_pk AS user, manager_pk AS manager, start_month AS start, end_month AS "end" FROM manager_attributions WHERE tenant_id = $1',
);

const recordCount = statement<[number], { count: number }>('SELECT coalesce(max(pos) + 1, 0) AS count FROM reporting_records WHERE tenant_id = $1');
const recordPositions = statement<[number, string[]], { id: string; pos: number }>('SELECT id, pos FROM reporting_records WHERE tenant_id = $1 AND id = ANY ($2)');
/**
 * The rows of an INSERT ... SELECT from arrays (`rows`), each beside its tenant's row of
 * `tenant_state` (`s`) and the time of stamp `stamp` (`t.at`): on Citus, a SELECT from a table
 * co-located with the one written, by its tenant, goes to the tenant's node as one task (from the
 * arrays alone, the rows would be gathered on the coordinator first).
 */
const stampedRows = (rows: string, stamp: string) =>
  `tenant_state s CROSS JOIN ${rows} LEFT JOIN stamp_times t ON t.tenant_id = s.tenant_id AND t.stamp = ${stamp} WHERE s.tenant_id = $1`;
/** The parts of each body given (`c.body`, `c.body_v2`) as a record stores them (recordParts.ts). */
const PARTS = `${headOf('c.body')}, ${tailOf('c.body')}, ${headV2Of('c.body_v2')}, ${tailV2Of('c.body_v2')}`;
/** An id already stored (given twice) is skipped, and missing from the ids returned. */
const insertRecords = statement<[number, number[], string[], number[], number[], string[], string[], number], { id: string }>(
  `INSERT INTO reporting_records (tenant_id, pos, id, user_pk, month, head, tail, head_v2, tail_v2, stamp, changed_at)
   SELECT s.tenant_id, c.pos, c.id, c.user_pk, c.month, ${PARTS}, $8, t.at
   FROM ${stampedRows('unnest($2::bigint[], $3::text[], $4::bigint[], $5::integer[], $6::text[], $7::text[]) AS c (pos, id, user_pk, month, body, body_v2)', '$8')}
   ON CONFLICT (tenant_id, id) DO NOTHING RETURNING id`,
);
/** Updates the records whose content changed (an unchanged one keeps its stamp; its user's object is not its content). */
const updateRecords = statement<[number, number[], number[], number[], string[], string[], number]>(
  `UPDATE reporting_records r SET (user_pk, month, head, tail, head_v2, tail_v2) = (c.user_pk, c.month, ${PARTS}),
     stamp = $7, changed_at = ${stampTime('$1', '$7')}
   FROM unnest($2::bigint[], $3::bigint[], $4::integer[], $5::text[], $6::text[]) AS c (pos, user_pk, month, body, body_v2)
   WHERE r.tenant_id = $1 AND r.pos = c.pos
     AND (r.user_pk, r.month, r.head, r.tail) IS DISTINCT FROM (c.user_pk, c.month, ${headOf('c.body')}, ${tailOf('c.body')})`,
);
/**
 * A new user-month row holds its user's object (recordParts.ts) and minus the stamp of the load
 * that made it (see ../sqlite/migrations.ts, 5).
 */
const ensureFieldRows = statement<[number, number[], number[], number]>(
  `INSERT INTO dimension_values (tenant_id, user_pk, month, fragment, stamp, user_json)
   SELECT s.tenant_id, w.user_pk, w.month, '}', -$4::bigint, (SELECT u.json FROM users u WHERE u.tenant_id = $1 AND u.pk = w.user_pk)
   FROM ${tenantRows('unnest($2::bigint[], $3::integer[]) AS w (user_pk, month)')}
   ON CONFLICT DO NOTHING`,
);

const insertTable = statement<[number, string, string, string], { pk: number }>('INSERT INTO data_tables (tenant_id, key, name, fields) VALUES ($1, $2, $3, $4) RETURNING pk');
const table = statement<[number, string], { pk: number; name: string; fields: string }>('SELECT pk, name, fields FROM data_tables WHERE tenant_id = $1 AND key = $2');
const renameTable = statement<[number, string, number]>('UPDATE data_tables SET name = $2 WHERE tenant_id = $1 AND pk = $3');
const tableRecordCount = statement<[number, number], { count: number }>(
  'SELECT coalesce(max(pos) + 1, 0) AS count FROM table_records WHERE tenant_id = $1 AND table_pk = $2',
);
const tableRecordPositions = statement<[number, number, string[]], { id: string; pos: number }>(
  'SELECT id, pos FROM table_records WHERE tenant_id = $1 AND table_pk = $2 AND id = ANY ($3)',
);
const insertTableRecords = statement<[number, number, number[], string[], string[], string[], number], { id: string }>(
  `INSERT INTO table_records (tenant_id, table_pk, pos, id, body, body_v2, stamp, changed_at)
   SELECT s.tenant_id, $2, r.*, $7, t.at FROM ${stampedRows('unnest($3::bigint[], $4::text[], $5::text[], $6::text[]) AS r', '$7')}
   ON CONFLICT (tenant_id, table_pk, id) DO NOTHING RETURNING id`,
);
const updateTableRecords = statement<[number, number, number[], string[], string[], number]>(
  `UPDATE table_records r SET body = c.body, body_v2 = c.body_v2, stamp = $6, changed_at = ${stampTime('$1', '$6')} FROM unnest($3::bigint[], $4::text[], $5::text[]) AS c (pos, body, body_v2)
   WHERE r.tenant_id = $1 AND r.table_pk = $2 AND r.pos = c.pos AND r.body IS DISTINCT FROM c.body`,
);

const ids = (rows: { id: string }[]) => rows.map((row) => row.id);

/** The values of `keys` in `rows`, a column each (the arrays a statement unnests). */
function columns<Row, const Keys extends readonly (keyof Row)[]>(rows: readonly Row[], ...keys: Keys): { [K in keyof Keys]: Row[Keys[K]][] } {
  return keys.map((key) => rows.map((row) => row[key])) as { [K in keyof Keys]: Row[Keys[K]][] };
}

/**
 * The steps of a load into one tenant on PostgreSQL, on the load transaction's connection. Text
 * PostgreSQL cannot hold (U+0000) names nothing stored: lookups by it find nothing (the loader
 * refuses it where it would be stored).
 */
export function loadSteps(db: Queryable, tenantId: number): LoadSteps {
  return {
    ...attributionSteps(db, tenantId),
    ...fieldSteps(db, tenantId),
    ...statementSteps(db, tenantId),
    metricKeys: async () => (await rowsOf(db, metricKeys, tenantId)).map((row) => row.key),
    dimensions: async () => (await rowsOf(db, dimensions, tenantId)).map((row): [string, number] => [row.key, row.pk]),
    insertMetric: async (key, position) => void (await run(db, insertMetric, tenantId, key, position)),
    addMetricToBodies: async (fragment, fragmentV2, stamp) => void (await run(db, addMetricToBodies, tenantId, fragment, fragmentV2, stamp)),
    insertDimension: async (key, position) => void (await run(db, insertDimension, tenantId, key, position)),

    usersByIdOrEmail: (userIds, emailKeys) => rowsOf(db, usersByIdOrEmail, tenantId, userIds.filter(storable), emailKeys.filter(storable)),
    usersById: (userIds) => rowsOf(db, usersById, tenantId, userIds.filter(storable)),
    async userIdByEmail(email) {
      const key = asciiLowerCase(email);
      return storable(key) ? (await firstRow(db, userIdByEmailKey, tenantId, key))?.id : undefined;
    },
    upsertUsers: (users) => rowsOf(db, upsertUsers, tenantId, users.map((u) => u.id), users.map((u) => u.email), users.map((u) => u.json)),
    setUserExtras: async (rows) =>
      void (await run(db, setUserExtras, tenantId, rows.map((r) => r.pk), rows.map((r) => r.attributes), rows.map((r) => r.archivedAfter))),
    rerenderUsersInRecords: async (changes, stamp) =>
      void (await run(db, rerenderUsersInRecords, tenantId, ...rerenderColumns(changes), stamp)),
    managerEdges: () => rowsOf(db, managerEdges, tenantId),

    recordCount: async () => (await firstRow(db, recordCount, tenantId))!.count,
    recordPositions: (recordIds) => rowsOf(db, recordPositions, tenantId, [...recordIds]),
    insertRecords: async (rows, stamp) =>
      ids(await rowsOf(db, insertRecords, tenantId, ...columns(rows, 'pos', 'id', 'userPk', 'month', 'body', 'bodyV2'), stamp)),
    updateRecords: async (rows, stamp) =>
      void (await run(db, updateRecords, tenantId, ...columns(rows, 'pos', 'userPk', 'month', 'body', 'bodyV2'), stamp)),
    ensureFieldRows: async (pairs, stamp) => void (await run(db, ensureFieldRows, tenantId, pairs.map((p) => p.userPk), pairs.map((p) => p.month), stamp)),

    table: (key) => firstRow(db, table, tenantId, key),
    insertTable: async (key, name, fieldsJson) => (await firstRow(db, insertTable, tenantId, key, name, fieldsJson))!.pk,
    renameTable: async (tablePk, name) => void (await run(db, renameTable, tenantId, name, tablePk)),
    tableRecordCount: async (tablePk) => (await firstRow(db, tableRecordCount, tenantId, tablePk))!.count,
    tableRecordPositions: (tablePk, recordIds) => rowsOf(db, tableRecordPositions, tenantId, tablePk, [...recordIds]),
    insertTableRecords: async (tablePk, rows, stamp) =>
      ids(await rowsOf(db, insertTableRecords, tenantId, tablePk, ...columns(rows, 'pos', 'id', 'body', 'bodyV2'), stamp)),
    updateTableRecords: async (tablePk, rows, stamp) =>
      void (await run(db, updateTableRecords, tenantId, tablePk, ...columns(rows, 'pos', 'body', 'bodyV2'), stamp)),
  };
}
