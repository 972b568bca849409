import type { ManagerEdge } from '../../domain/bulkChecks.js';
import { statement } from './connection.js';

/**
 * The statements of the tenant writer and the bulk upsert. Each writes a whole batch at once
 * from arrays (`unnest`), so that a batch costs a few round trips whatever its size. `$1` is
 * always the tenant.
 */

type UserRow = { pk: number; id: string; email_key: string; json: string };

export const writerStatements = {
  metricKeys: statement<[number], { key: string }>('SELECT key FROM metrics WHERE tenant_id = $1 ORDER BY position'),
  dimensions: statement<[number], { key: string; pk: number }>('SELECT key, pk FROM dimensions WHERE tenant_id = $1 ORDER BY position'),
  insertMetric: statement<[number, string, number]>('INSERT INTO metrics (tenant_id, key, position) VALUES ($1, $2, $3)'),
  insertDimension: statement<[number, string, number]>('INSERT INTO dimensions (tenant_id, key, position) VALUES ($1, $2, $3)'),
  /** Adds a new metric (`,"key":null,"key_currency":`) to every stored body, valued null in the line's payment currency. */
  addMetricToBodies: statement<[number, string, number]>(
    `UPDATE reporting_records SET body = body || $2 || to_json((body || '}')::json ->> 'payment_currency')::text, stamp = $3 WHERE tenant_id = $1`,
  ),

  /** The stored users with one of these ids or e-mail keys. */
  usersByIdOrEmail: statement<[number, string[], string[]], UserRow>(
    'SELECT pk, id, email_key, json FROM users WHERE tenant_id = $1 AND (id = ANY ($2) OR email_key = ANY ($3))',
  ),
  usersById: statement<[number, string[]], UserRow>('SELECT pk, id, email_key, json FROM users WHERE tenant_id = $1 AND id = ANY ($2)'),
  userIdByEmailKey: statement<[number, string], { id: string }>('SELECT id FROM users WHERE tenant_id = $1 AND email_key = $2'),
  emailsOfUsers: statement<[number, number[]], { pk: number; email: string }>('SELECT pk, email FROM users WHERE tenant_id = $1 AND pk = ANY ($2)'),
  /** Upserts users in the order given (so an e-mail freed by an earlier one may be taken by a later one). */
  upsertUsers: statement<[number, string[], string[], string[]], { id: string; pk: number }>(
    `INSERT INTO users (tenant_id, id, email, json)
     SELECT $1, id, email, json FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS u (id, email, json, n) ORDER BY n
     ON CONFLICT (tenant_id, id) DO UPDATE SET email = excluded.email, json = excluded.json
     RETURNING id, pk`,
  ),
  /** Rewrites the user object inside the stored bodies of users whose object changed. */
  rerenderUsersInRecords: statement<[number, number[], string[], string[], number]>(
    `UPDATE reporting_records r SET body = replace(r.body, c.old, c.new), stamp = $5
     FROM unnest($2::bigint[], $3::text[], $4::text[]) AS c (user_pk, old, new)
     WHERE r.tenant_id = $1 AND r.user_pk = c.user_pk`,
  ),

  groupsByName: statement<[number, number[], string[]], { pk: number; dimension_pk: number; name: string }>(
    `SELECT g.pk, g.dimension_pk, g.name FROM unnest($2::bigint[], $3::text[]) AS w (dimension_pk, name)
     JOIN groups g ON g.tenant_id = $1 AND g.dimension_pk = w.dimension_pk AND g.name = w.name`,
  ),
  insertGroups: statement<[number, number[], string[]]>(
    `INSERT INTO groups (tenant_id, dimension_pk, name) SELECT $1, * FROM unnest($2::bigint[], $3::text[]) ON CONFLICT DO NOTHING`,
  ),
  /** The stored group attributions of these (user, dimension) slots. */
  groupRowsOfSlots: statement<[number, number[], number[]], { pk: number; user_pk: number; dimension_pk: number; group_pk: number; start: number; end: number | null }>(
    `SELECT a.pk, a.user_pk, a.dimension_pk, a.group_pk, a.start_month AS start, a.end_month AS "end"
     FROM (SELECT DISTINCT * FROM unnest($2::bigint[], $3::bigint[]) AS w (user_pk, dimension_pk)) w
     JOIN group_attributions a ON a.tenant_id = $1 AND a.user_pk = w.user_pk AND a.dimension_pk = w.dimension_pk`,
  ),
  deleteGroupRows: statement<[number, number[]]>('DELETE FROM group_attributions WHERE tenant_id = $1 AND pk = ANY ($2)'),
  updateGroupRows: statement<[number, number[], (number | null)[], (number | null)[]]>(
    `UPDATE group_attributions a SET start_month = c.start_month, end_month = c.end_month
     FROM unnest($2::bigint[], $3::integer[], $4::integer[]) AS c (pk, start_month, end_month)
     WHERE a.tenant_id = $1 AND a.pk = c.pk`,
  ),
  insertGroupRows: statement<[number, number[], number[], number[], (number | null)[], (number | null)[]]>(
    `INSERT INTO group_attributions (tenant_id, user_pk, dimension_pk, group_pk, start_month, end_month)
     SELECT $1, * FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::integer[], $6::integer[])`,
  ),

  /** The stored manager attributions of these users. */
  managerRowsOfUsers: statement<[number, number[]], { pk: number; user: number; manager: number; start: number | null; end: number | null }>(
    `SELECT pk, user_pk AS user, manager_pk AS manager, start_month AS start, end_month AS "end"
     FROM manager_attributions WHERE tenant_id = $1 AND user_pk = ANY ($2)`,
  ),
  deleteManagerRows: statement<[number, number[]]>('DELETE FROM manager_attributions WHERE tenant_id = $1 AND pk = ANY ($2)'),
  updateManagerRows: statement<[number, number[], (number | null)[], (number | null)[]]>(
    `UPDATE manager_attributions a SET start_month = c.start_month, end_month = c.end_month
     FROM unnest($2::bigint[], $3::integer[], $4::integer[]) AS c (pk, start_month, end_month)
     WHERE a.tenant_id = $1 AND a.pk = c.pk`,
  ),
  insertManagerRows: statement<[number, number[], number[], (number | null)[], (number | null)[]]>(
    `INSERT INTO manager_attributions (tenant_id, user_pk, manager_pk, start_month, end_month)
     SELECT $1, * FROM unnest($2::bigint[], $3::bigint[], $4::integer[], $5::integer[])`,
  ),
  managerEdges: statement<[number], ManagerEdge>(
    'SELECT user_pk AS user, manager_pk AS manager, start_month AS start, end_month AS "end" FROM manager_attributions WHERE tenant_id = $1',
  ),

  recordCount: statement<[number], { count: number }>('SELECT coalesce(max(pos) + 1, 0) AS count FROM reporting_records WHERE tenant_id = $1'),
  recordPositions: statement<[number, string[]], { id: string; pos: number }>('SELECT id, pos FROM reporting_records WHERE tenant_id = $1 AND id = ANY ($2)'),
  /** Inserts new records; an id already stored (given twice) is skipped, and missing from the ids returned. */
  insertRecords: statement<[number, number[], string[], number[], number[], string[], number], { id: string }>(
    `INSERT INTO reporting_records (tenant_id, pos, id, user_pk, month, body, stamp)
     SELECT $1, *, $7 FROM unnest($2::bigint[], $3::text[], $4::bigint[], $5::integer[], $6::text[])
     ON CONFLICT (tenant_id, id) DO NOTHING RETURNING id`,
  ),
  /** Updates the records whose content changed (an unchanged one keeps its stamp). */
  updateRecords: statement<[number, number[], number[], number[], string[], number]>(
    `UPDATE reporting_records r SET user_pk = c.user_pk, month = c.month, body = c.body, stamp = $6
     FROM unnest($2::bigint[], $3::bigint[], $4::integer[], $5::text[]) AS c (pos, user_pk, month, body)
     WHERE r.tenant_id = $1 AND r.pos = c.pos AND (r.user_pk, r.month, r.body) IS DISTINCT FROM (c.user_pk, c.month, c.body)`,
  ),
  /** A new dimension fields row holds minus the stamp of the load that made it (see ../sqlite/migrations.ts, 5). */
  ensureDimensionValues: statement<[number, number[], number[], number]>(
    `INSERT INTO dimension_values (tenant_id, user_pk, month, fragment, stamp)
     SELECT $1, user_pk, month, '}', -$4::bigint FROM unnest($2::bigint[], $3::integer[]) AS w (user_pk, month)
     ON CONFLICT DO NOTHING`,
  ),

  insertTable: statement<[number, string, string, string], { pk: number }>(
    'INSERT INTO data_tables (tenant_id, key, name, fields) VALUES ($1, $2, $3, $4) RETURNING pk',
  ),
  table: statement<[number, string], { pk: number; name: string; fields: string }>('SELECT pk, name, fields FROM data_tables WHERE tenant_id = $1 AND key = $2'),
  renameTable: statement<[number, string, number]>('UPDATE data_tables SET name = $2 WHERE tenant_id = $1 AND pk = $3'),
  tableRecordCount: statement<[number, number], { count: number }>(
    'SELECT coalesce(max(pos) + 1, 0) AS count FROM table_records WHERE tenant_id = $1 AND table_pk = $2',
  ),
  tableRecordPositions: statement<[number, number, string[]], { id: string; pos: number }>(
    'SELECT id, pos FROM table_records WHERE tenant_id = $1 AND table_pk = $2 AND id = ANY ($3)',
  ),
  insertTableRecords: statement<[number, number, number[], string[], string[], number], { id: string }>(
    `INSERT INTO table_records (tenant_id, table_pk, pos, id, body, stamp)
     SELECT $1, $2, *, $6 FROM unnest($3::bigint[], $4::text[], $5::text[])
     ON CONFLICT (tenant_id, table_pk, id) DO NOTHING RETURNING id`,
  ),
  updateTableRecords: statement<[number, number, number[], string[], number]>(
    `UPDATE table_records r SET body = c.body, stamp = $5 FROM unnest($3::bigint[], $4::text[]) AS c (pos, body)
     WHERE r.tenant_id = $1 AND r.table_pk = $2 AND r.pos = c.pos AND r.body IS DISTINCT FROM c.body`,
  ),
};
