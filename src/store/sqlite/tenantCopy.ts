import type { WriteSteps } from '../engine/transactionSteps.js';
import type { Tenant } from '../vocabulary/tenancy.js';
import type { Db } from './db.js';

/** A table's key (`pk`) and the offset that moves the template's keys past every key in use. */
const OFFSET = (table: string, ofTemplate: string) =>
  `SELECT ifnull((SELECT max(pk) FROM ${table}), 0) - ifnull((SELECT min(pk) FROM ${table} WHERE ${ofTemplate}), 0) + 1`;

/**
 * A tenant's data copied into another, inside the caller's write transaction, each table by one
 * `INSERT … SELECT` (docs/administration.md#how-a-copy-is-made). Keys (`pk`) are rowids shared by
 * every tenant: the template's are moved past the largest in use by one offset per table, so that
 * a reference between two copied rows moves with them and the order of keys is the template's.
 * Every copied record, table record and statement carries the copy's stamp and its time, as a
 * load writes them (migration 5): a sync of the copy starts from it. Not copied: keys, requests
 * (idempotency keys, imports), the positions of removed records, the recipe.
 */
export function tenantCopySteps(db: Db): Pick<WriteSteps, 'copyData' | 'dataVersion' | 'tenantsNamedBetween' | 'originInUse'> {
  const offsets = {
    users: db.prepare<{ from: number }, number>(OFFSET('users', 'tenant_id = @from')).pluck(),
    dimensions: db.prepare<{ from: number }, number>(OFFSET('dimensions', 'tenant_id = @from')).pluck(),
    groups: db.prepare<{ from: number }, number>(OFFSET('groups', 'dimension_pk IN (SELECT pk FROM dimensions WHERE tenant_id = @from)')).pluck(),
    managerAttributions: db
      .prepare<{ from: number }, number>(OFFSET('manager_attributions', 'user_pk IN (SELECT pk FROM users WHERE tenant_id = @from)'))
      .pluck(),
    tables: db.prepare<{ from: number }, number>(OFFSET('data_tables', 'tenant_id = @from')).pluck(),
  };
  type Offsets = { [K in keyof typeof offsets]: number };
  const copies = [
    `UPDATE tenants SET empty_fragment = (SELECT empty_fragment FROM tenants WHERE id = @from) WHERE id = @to`,
    `INSERT INTO metrics (tenant_id, key, position) SELECT @to, key, position FROM metrics WHERE tenant_id = @from`,
    `INSERT INTO dimensions (pk, tenant_id, key, position) SELECT pk + @dimensions, @to, key, position FROM dimensions WHERE tenant_id = @from ORDER BY pk`,
    `INSERT INTO groups (pk, dimension_pk, name)
     SELECT g.pk + @groups, g.dimension_pk + @dimensions, g.name FROM groups g JOIN dimensions d ON d.pk = g.dimension_pk WHERE d.tenant_id = @from ORDER BY g.pk`,
    `INSERT INTO users (pk, tenant_id, id, email, json, attributes, archived_after)
     SELECT pk + @users, @to, id, email, json, attributes, archived_after FROM users WHERE tenant_id = @from ORDER BY pk`,
    // Group attributions are keyed by user, dimension and start month (migration 27): no key of their own to move.
    `INSERT INTO group_attributions (user_pk, dimension_pk, start_month, group_pk, end_month)
     SELECT a.user_pk + @users, a.dimension_pk + @dimensions, a.start_month, a.group_pk + @groups, a.end_month
     FROM users u JOIN group_attributions a ON a.user_pk = u.pk WHERE u.tenant_id = @from ORDER BY a.user_pk, a.dimension_pk, a.start_month`,
    `INSERT INTO manager_attributions (pk, user_pk, manager_pk, start_month, end_month)
     SELECT a.pk + @managerAttributions, a.user_pk + @users, a.manager_pk + @users, a.start_month, a.end_month
     FROM manager_attributions a JOIN users u ON u.pk = a.user_pk WHERE u.tenant_id = @from ORDER BY a.pk`,
    `INSERT INTO reporting_records (tenant_id, pos, id, user_pk, month, body, user_at, user_len, user_rev, stamp)
     SELECT @to, pos, id, user_pk + @users, month, body, user_at, user_len, user_rev, @stamp FROM reporting_records WHERE tenant_id = @from ORDER BY pos`,
    `INSERT INTO reporting_records_v2 (tenant_id, pos, user_pk, month, body, changed_at)
     SELECT @to, pos, user_pk + @users, month, body, @at FROM reporting_records_v2 WHERE tenant_id = @from ORDER BY pos`,
    // A dimension fields row made with its records holds minus their stamp (migration 5).
    `INSERT INTO dimension_values (user_pk, month, fragment, tenant_id, stamp, changed_at, user_rev, user_json)
     SELECT user_pk + @users, month, fragment, @to, -@stamp, NULL, user_rev, user_json FROM dimension_values WHERE tenant_id = @from ORDER BY user_pk, month`,
    `INSERT INTO statements (tenant_id, user_pk, month, status, total, currency_json, changed_at)
     SELECT @to, user_pk + @users, month, status, total, currency_json, @at FROM statements WHERE tenant_id = @from ORDER BY user_pk, month`,
    `INSERT INTO data_tables (pk, tenant_id, key, name, fields) SELECT pk + @tables, @to, key, name, fields FROM data_tables WHERE tenant_id = @from ORDER BY pk`,
    `INSERT INTO table_records (table_pk, pos, id, body, stamp, body_v2, changed_at)
     SELECT r.table_pk + @tables, r.pos, r.id, r.body, @stamp, r.body_v2, @at
     FROM table_records r JOIN data_tables t ON t.pk = r.table_pk WHERE t.tenant_id = @from ORDER BY r.table_pk, r.pos`,
  ].map((sql) => db.prepare<Offsets & { from: number; to: number; stamp: number; at: string }>(sql));
  const stampTime = db.prepare<[number, number], string>('SELECT at FROM stamp_times WHERE tenant_id = ? AND stamp = ?').pluck();
  const dataVersion = db.prepare<[number], number | bigint>('SELECT data_version FROM tenants WHERE id = ?').pluck();
  const namedBetween = db.prepare<[string, string], Tenant>('SELECT id, name FROM tenants WHERE name >= ? AND name < ? ORDER BY name');
  const originInUse = db.prepare<[number], number>('SELECT EXISTS (SELECT 1 FROM sandbox_recipes WHERE origin_id = ?)').pluck();
  return {
    copyData(from, to, stamp) {
      const at = stampTime.get(to, stamp)!;
      const moved = Object.fromEntries(Object.entries(offsets).map(([name, offset]) => [name, offset.get({ from })!])) as Offsets;
      for (const copy of copies) copy.run({ ...moved, from, to, stamp, at });
    },
    dataVersion(tenantId) {
      const version = dataVersion.get(tenantId);
      return version === undefined ? undefined : String(version);
    },
    tenantsNamedBetween: (from, before) => namedBetween.all(from, before),
    originInUse: (originId) => originInUse.get(originId) === 1,
  };
}
