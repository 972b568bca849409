import type { LoadSteps } from '../engine/loadSteps.js';
import type { Queryable } from './connection.js';

/**
 * The planner's statistics kept in step with a large load (PostgreSQL; docs/operations.md says
 * why). Autovacuum analyses a table only after transactions commit, so a load far larger than
 * what the statistics know of the tenant would be planned as if the tenant were still small:
 * lookups of a batch's ids filter the tenant's rows instead of probing the unique index, and the
 * load's cost grows with the square of its size.
 *
 * So a load analyses a table it writes when its own rows there reach {@link FIRST_ANALYZE}, then
 * at each doubling. ANALYZE inside the load's transaction counts the transaction's own rows, and
 * new statistics make the connection plan its prepared statements again. Only the columns that
 * statements look rows up by are analysed. SKIP_LOCKED: while another load holds the table's
 * ANALYZE lock, this one goes on without.
 */
const FIRST_ANALYZE = 5_000;

/** The tables a load grows, with the columns their statements find rows by. */
const LOOKUP_COLUMNS = {
  users: 'tenant_id, pk, id, email_key',
  reporting_records: 'tenant_id, pos, id, user_pk, month, stamp',
  dimension_values: 'tenant_id, user_pk, month, stamp',
  table_records: 'tenant_id, table_pk, pos, id, stamp',
  group_attributions: 'tenant_id, user_pk, dimension_pk',
  manager_attributions: 'tenant_id, user_pk, manager_pk',
} as const;

type GrownTable = keyof typeof LOOKUP_COLUMNS;

/** `steps`, analysing the tables they grow as the load's rows in them double. */
export function keepingStatistics(db: Queryable, steps: LoadSteps): LoadSteps {
  const grown = new Map<GrownTable, { written: number; analyzeAt: number }>();
  const wrote = async (table: GrownTable, rows: number) => {
    const state = grown.get(table) ?? { written: 0, analyzeAt: FIRST_ANALYZE };
    grown.set(table, state);
    state.written += rows;
    if (state.written < state.analyzeAt) return;
    state.analyzeAt = 2 * state.written;
    await db.query(`ANALYZE (SKIP_LOCKED) ${table} (${LOOKUP_COLUMNS[table]})`);
  };
  return {
    ...steps,
    async upsertUsers(users) {
      const stored = await steps.upsertUsers(users);
      await wrote('users', users.length);
      return stored;
    },
    async insertRecords(rows, stamp) {
      const inserted = await steps.insertRecords(rows, stamp);
      await wrote('reporting_records', rows.length);
      return inserted;
    },
    async ensureFieldRows(pairs, stamp) {
      await steps.ensureFieldRows(pairs, stamp);
      await wrote('dimension_values', pairs.length);
    },
    async insertTableRecords(tablePk, rows, stamp) {
      const inserted = await steps.insertTableRecords(tablePk, rows, stamp);
      await wrote('table_records', rows.length);
      return inserted;
    },
    async writeGroups(writes) {
      await steps.writeGroups(writes);
      await wrote('group_attributions', writes.inserts.length);
    },
    async writeManagers(writes) {
      await steps.writeManagers(writes);
      await wrote('manager_attributions', writes.inserts.length);
    },
  };
}
