import type { SlotWrites, UserMonthFragment } from '../../domain/bulkPlan.js';
import type { Columns } from '../engine/commonWriteSteps.js';
import { run, statement, type Queryable } from './connection.js';
import { newKey, tenantRows } from './tenantKeys.js';

/**
 * The writes of the attribution tables on PostgreSQL: each one statement over arrays of rows.
 * A new row's key is drawn from the rows before the statement (tenantKeys.ts).
 */

/** The deletes (keys `$d`) and the moves (keys `$d+1`, months `$d+2`, `$d+3`) of `table`, as two modifying CTEs named after `name` ({@link finish}). */
const removeAndMoveOf = (table: string, name: string, d: number) =>
  `removed_${name} AS (DELETE FROM ${table} WHERE tenant_id = $1 AND pk = ANY ($${d})),
   moved_${name} AS (UPDATE ${table} a SET start_month = c.start_month, end_month = c.end_month
     FROM unnest($${d + 1}::bigint[], $${d + 2}::integer[], $${d + 3}::integer[]) AS c (pk, start_month, end_month)
     WHERE a.tenant_id = $1 AND a.pk = c.pk)`;

/**
 * The statements of one attribution table: the deletes and the moves of months in one, each on
 * its own rows; the inserts (the payload `columns`, then months) in another (Citus runs an
 * INSERT ... SELECT beside a modifying CTE in steps).
 */
const slotStatementsOf = (table: string, columns: readonly string[]) => ({
  width: columns.length,
  removeAndMove: statement<[number, number[], number[], (number | null)[], (number | null)[]]>(
    `WITH removed AS (DELETE FROM ${table} WHERE tenant_id = $1 AND pk = ANY ($2))
     UPDATE ${table} a SET start_month = c.start_month, end_month = c.end_month
     FROM unnest($3::bigint[], $4::integer[], $5::integer[]) AS c (pk, start_month, end_month)
     WHERE a.tenant_id = $1 AND a.pk = c.pk`,
  ),
  insert: statement<[number, ...unknown[][]]>(
    `INSERT INTO ${table} (tenant_id, pk, ${columns.join(', ')}, start_month, end_month)
     SELECT s.tenant_id, ${newKey(table, 'a.n')}, ${columns.map((name) => `a.${name}`).join(', ')}, a.start_month, a.end_month
     FROM ${tenantRows(`unnest(${columns.map((_, i) => `$${2 + i}::bigint[]`).join(', ')}, $${2 + columns.length}::integer[], $${3 + columns.length}::integer[]) WITH ORDINALITY AS a (${columns.join(', ')}, start_month, end_month, n)`)}`,
  ),
});
export const groupWrites = slotStatementsOf('group_attributions', ['user_pk', 'dimension_pk', 'group_pk']);
export const managerWrites = slotStatementsOf('manager_attributions', ['user_pk', 'manager_pk']);
type Table = typeof groupWrites;
type Writes = SlotWrites<Columns, number>;

/**
 * The end of a bulk upsert, one statement: the deletes and moves of group attributions (`$2` to
 * `$5`) and of manager attributions (`$6` to `$9`), the changed dimension fields (`$10` to
 * `$12`) stamped with the request's change (`$13`) and its time (`$14`, changeStamps.ts), and
 * the tenant's data a new version (`$15`). Modifying CTEs beside an UPDATE: Citus runs the whole
 * on the tenant's node as one task. Each CTE writes rows of its own (no row twice).
 */
const finish = statement<[number, ...unknown[]]>(
  `WITH ${removeAndMoveOf('group_attributions', 'groups', 2)},
   ${removeAndMoveOf('manager_attributions', 'managers', 6)},
   versioned AS (UPDATE tenant_state SET data_version = $15 WHERE tenant_id = $1)
   UPDATE dimension_values v SET fragment = c.fragment, stamp = $13, changed_at = $14
   FROM unnest($10::bigint[], $11::integer[], $12::text[]) AS c (user_pk, month, fragment)
   WHERE v.tenant_id = $1 AND v.user_pk = c.user_pk AND v.month = c.month`,
);

/** The arrays of the deletes and moves of `writes`. */
const removeAndMoveColumns = ({ deletes, updates }: Pick<Writes, 'deletes' | 'updates'>) =>
  [[...deletes], updates.map((u) => u.key), updates.map((u) => u.period.start), updates.map((u) => u.period.end)] as const;

/** Carries out {@link SlotWrites} on one attribution table in at most two statements. */
export async function writeSlots(db: Queryable, tenantId: number, writes: Writes, table: Table): Promise<void> {
  if (writes.deletes.length + writes.updates.length > 0) await run(db, table.removeAndMove, tenantId, ...removeAndMoveColumns(writes));
  await insertSlots(db, tenantId, writes, table);
}

/** The inserts of {@link SlotWrites} on one attribution table, one statement (none without rows). */
export async function insertSlots(db: Queryable, tenantId: number, { inserts }: Writes, table: Table): Promise<void> {
  if (inserts.length === 0) return;
  const payloadColumns = Array.from({ length: table.width }, (_, i) => inserts.map((row) => row.payload[i]!));
  await run(db, table.insert, tenantId, ...payloadColumns, inserts.map((row) => row.start), inserts.map((row) => row.end));
}

/** The deletes and moves a bulk upsert left for its last statement, and what that statement writes. */
export interface BulkEnd {
  readonly groups: Pick<Writes, 'deletes' | 'updates'>;
  readonly managers: Pick<Writes, 'deletes' | 'updates'>;
  readonly fields: readonly UserMonthFragment[];
  /** The stamp and time of the fields' change (unused without fields). */
  readonly stamp: number;
  readonly at: string;
  readonly dataVersion: number;
}

/** Runs the last statement of a bulk upsert ({@link finish}). */
export async function finishBulk(db: Queryable, tenantId: number, end: BulkEnd): Promise<void> {
  const { groups, managers, fields } = end;
  await run(db, finish, tenantId, ...removeAndMoveColumns(groups), ...removeAndMoveColumns(managers),
    fields.map((c) => c.userPk), fields.map((c) => c.month), fields.map((c) => c.fragment), end.stamp, end.at, end.dataVersion);
}
