import type { WriteSteps } from '../engine/transactionSteps.js';
import type { Tenant } from '../vocabulary/tenancy.js';
import { firstRow, rowsOf, run, statement, type Queryable } from './connection.js';

type Copy = { from: number; to: number; stamp: number; at: string };
/** A statement of the copy and its parameters, taken from the copy's (each names only those it uses). */
const copy = (sql: string, params: (c: Copy) => (number | string)[]) => ({ statement: statement<(number | string)[]>(sql), params });

// Keys (`pk`) are counted per tenant (tenantKeys.ts), so the copy keeps the template's: a
// reference between two copied rows stays as it is. Generated columns are left out.
const copies = [
  copy(`INSERT INTO metrics (tenant_id, key, position) SELECT $2, key, position FROM metrics WHERE tenant_id = $1`, (c) => [c.from, c.to]),
  copy(`INSERT INTO dimensions (tenant_id, pk, key, position) SELECT $2, pk, key, position FROM dimensions WHERE tenant_id = $1`, (c) => [c.from, c.to]),
  copy(`INSERT INTO groups (tenant_id, pk, dimension_pk, name) SELECT $2, pk, dimension_pk, name FROM groups WHERE tenant_id = $1`, (c) => [c.from, c.to]),
  copy(`INSERT INTO users (tenant_id, pk, id, email, json, attributes, archived_after)
   SELECT $2, pk, id, email, json, attributes, archived_after FROM users WHERE tenant_id = $1`, (c) => [c.from, c.to]),
  copy(`INSERT INTO group_attributions (tenant_id, pk, user_pk, dimension_pk, group_pk, start_month, end_month)
   SELECT $2, pk, user_pk, dimension_pk, group_pk, start_month, end_month FROM group_attributions WHERE tenant_id = $1`, (c) => [c.from, c.to]),
  copy(`INSERT INTO manager_attributions (tenant_id, pk, user_pk, manager_pk, start_month, end_month)
   SELECT $2, pk, user_pk, manager_pk, start_month, end_month FROM manager_attributions WHERE tenant_id = $1`, (c) => [c.from, c.to]),
  copy(`INSERT INTO reporting_records (tenant_id, pos, id, user_pk, month, head, tail, head_v2, tail_v2, stamp, changed_at)
   SELECT $2, pos, id, user_pk, month, head, tail, head_v2, tail_v2, $3, $4 FROM reporting_records WHERE tenant_id = $1`, (c) => [c.from, c.to, c.stamp, c.at]),
  // A dimension fields row made with its records holds minus their stamp (../sqlite/migrations.ts, 5).
  copy(`INSERT INTO dimension_values (tenant_id, user_pk, month, fragment, user_json, stamp, changed_at)
   SELECT $2, user_pk, month, fragment, user_json, -$3::bigint, NULL FROM dimension_values WHERE tenant_id = $1`, (c) => [c.from, c.to, c.stamp]),
  copy(`INSERT INTO statements (tenant_id, user_pk, month, status, total, currency_json, changed_at)
   SELECT $2, user_pk, month, status, total, currency_json, $3 FROM statements WHERE tenant_id = $1`, (c) => [c.from, c.to, c.at]),
  copy(`INSERT INTO data_tables (tenant_id, pk, key, name, fields) SELECT $2, pk, key, name, fields FROM data_tables WHERE tenant_id = $1`, (c) => [c.from, c.to]),
  copy(`INSERT INTO table_records (tenant_id, table_pk, pos, id, body, body_v2, stamp, changed_at)
   SELECT $2, table_pk, pos, id, body, body_v2, $3, $4 FROM table_records WHERE tenant_id = $1`, (c) => [c.from, c.to, c.stamp, c.at]),
];
// Read, then written: on Citus an UPDATE may not read another tenant's node.
const emptyFragment = statement<[number], { fragment: string }>('SELECT empty_fragment AS fragment FROM tenant_state WHERE tenant_id = $1');
const setEmptyFragment = statement<[number, string]>('UPDATE tenant_state SET empty_fragment = $2 WHERE tenant_id = $1');
const stampTime = statement<[number, number], { at: string }>('SELECT at FROM stamp_times WHERE tenant_id = $1 AND stamp = $2');
const dataVersion = statement<[number], { version: string }>('SELECT data_version::text AS version FROM tenant_state WHERE tenant_id = $1');
const namedBetween = statement<[string, string], Tenant>('SELECT id, name FROM tenants WHERE name >= $1 AND name < $2 ORDER BY name');
const originInUse = statement<[number], { found: boolean }>('SELECT EXISTS (SELECT 1 FROM sandbox_recipes WHERE origin_id = $1) AS found');

/**
 * A tenant's data copied into another, inside the caller's transaction, each table by one
 * `INSERT … SELECT` (docs/administration.md#how-a-copy-is-made). On Citus the two tenants may
 * live on different nodes: each statement is then planned as a repartitioned INSERT … SELECT
 * (the rows read on the template's node, sent to the copy's), in the caller's transaction all
 * the same. Every copied record carries the copy's stamp and its time, as a load writes them.
 * Not copied: keys, requests (idempotency keys, imports), removed records' positions, the recipe.
 */
export function tenantCopySteps(db: Queryable): Pick<WriteSteps, 'copyData' | 'dataVersion' | 'tenantsNamedBetween' | 'originInUse'> {
  return {
    async copyData(from, to, stamp) {
      const { at } = (await firstRow(db, stampTime, to, stamp))!;
      await run(db, setEmptyFragment, to, (await firstRow(db, emptyFragment, from))!.fragment);
      for (const { statement, params } of copies) await run(db, statement, ...params({ from, to, stamp, at }));
    },
    dataVersion: async (tenantId) => (await firstRow(db, dataVersion, tenantId))?.version,
    tenantsNamedBetween: (from, before) => rowsOf(db, namedBetween, from, before),
    originInUse: async (originId) => (await firstRow(db, originInUse, originId))!.found,
  };
}
