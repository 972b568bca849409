import type { LoadSteps } from '../engine/loadSteps.js';
import type { Queryable } from './connection.js';

/**
 * The planner's statistics kept in step with a large load (PostgreSQL). The planner chooses how
 * to run each statement from statistics that ANALYZE gathers, which autovacuum runs only after
 * transactions commit. A load that writes far more rows into a tenant than the statistics know
 * of (a tenant analysed while it held one record, then an import of 100,000) is planned as if
 * the tenant still held one: a lookup of 250 ids then reads every row of the tenant with the ids
 * as a filter instead of probing the unique index, and a join of a batch with the tenant's rows
 * loops over all of them; the load's cost grows with the square of its size. Measured: such an
 * import of 100,000 records ran for minutes, one UPDATE of a batch of dimension fields took 119
 * s, and a table import of 20,000 records into a table analysed with one record spent 120 ms a
 * batch by its end on the lookup alone.
 *
 * So a load analyses a table it writes when its own rows there reach {@link FIRST_ANALYZE}, then
 * twice as many, and so on (a few times per load, about as many ANALYZEs as doublings). ANALYZE
 * inside the load's transaction counts the transaction's own rows, and a new ANALYZE makes the
 * connection plan its prepared statements again. Only the columns that statements look rows up
 * by are analysed (the bodies are large and never a condition). SKIP_LOCKED: while another load
 * of the same table holds its ANALYZE lock (until that load commits), this one goes on without.
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
