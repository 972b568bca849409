import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateSeed } from '../../src/dataset/generateSeed.js';
import { seedTenant, writeDataset } from '../../src/dataset/seedTenant.js';
import { copySandbox, resetSandbox } from '../../src/dataset/sandboxes.js';
import { TenantNotEmpty } from '../../src/store/vocabulary/storeErrors.js';
import { exportOf } from '../support/datasets.js';
import { buildFixture } from '../support/fixture.js';
import { tempDatabase, TEST_ENGINE, type TempDatabase } from '../support/harness.js';

/**
 * The engine's copy of a tenant (AdminStore.copyTenant) and the created states of copied
 * sandboxes (docs/administration.md#reset), on the engine of the run.
 */

/** Each table of tenant data, as the rows of one tenant (`$1`) are selected on each engine. */
const TABLES: Record<'sqlite' | 'postgres', Record<string, string>> = {
  sqlite: {
    metrics: 'SELECT key, position FROM metrics WHERE tenant_id = $1 ORDER BY key',
    dimensions: 'SELECT key, position FROM dimensions WHERE tenant_id = $1 ORDER BY pk',
    groups: 'SELECT g.name FROM groups g JOIN dimensions d ON d.pk = g.dimension_pk WHERE d.tenant_id = $1 ORDER BY g.pk',
    users: 'SELECT id, email, json, attributes, archived_after FROM users WHERE tenant_id = $1 ORDER BY pk',
    group_attributions:
      'SELECT a.start_month, a.end_month, g.name FROM group_attributions a JOIN users u ON u.pk = a.user_pk JOIN groups g ON g.pk = a.group_pk WHERE u.tenant_id = $1 ORDER BY a.user_pk, a.dimension_pk, a.start_month',
    manager_attributions: 'SELECT a.start_month, a.end_month FROM manager_attributions a JOIN users u ON u.pk = a.user_pk WHERE u.tenant_id = $1 ORDER BY a.pk',
    reporting_records: 'SELECT pos, id, month, body, user_at, user_len, user_rev FROM reporting_records WHERE tenant_id = $1 ORDER BY pos',
    reporting_records_v2: 'SELECT pos, month, body FROM reporting_records_v2 WHERE tenant_id = $1 ORDER BY pos',
    dimension_values: 'SELECT month, fragment, fragment_v2, user_rev, user_json FROM dimension_values WHERE tenant_id = $1 ORDER BY user_pk, month',
    statements: 'SELECT month, status, total, currency_json FROM statements WHERE tenant_id = $1 ORDER BY user_pk, month',
    data_tables: 'SELECT key, name, fields FROM data_tables WHERE tenant_id = $1 ORDER BY pk',
    table_records: 'SELECT r.pos, r.id, r.body, r.body_v2 FROM table_records r JOIN data_tables t ON t.pk = r.table_pk WHERE t.tenant_id = $1 ORDER BY r.table_pk, r.pos',
  },
  postgres: {
    metrics: 'SELECT key, position FROM metrics WHERE tenant_id = $1 ORDER BY key',
    dimensions: 'SELECT key, position FROM dimensions WHERE tenant_id = $1 ORDER BY pk',
    groups: 'SELECT name FROM groups WHERE tenant_id = $1 ORDER BY pk',
    users: 'SELECT id, email, json, attributes, archived_after FROM users WHERE tenant_id = $1 ORDER BY pk',
    group_attributions: 'SELECT start_month, end_month FROM group_attributions WHERE tenant_id = $1 ORDER BY pk',
    manager_attributions: 'SELECT start_month, end_month FROM manager_attributions WHERE tenant_id = $1 ORDER BY pk',
    reporting_records: 'SELECT pos, id, month, head, tail, head_v2, tail_v2 FROM reporting_records WHERE tenant_id = $1 ORDER BY pos',
    dimension_values: 'SELECT month, fragment, fragment_v2, user_json, user_v2 FROM dimension_values WHERE tenant_id = $1 ORDER BY user_pk, month',
    statements: 'SELECT month, status, total, currency_json FROM statements WHERE tenant_id = $1 ORDER BY user_pk, month',
    data_tables: 'SELECT key, name, fields FROM data_tables WHERE tenant_id = $1 ORDER BY pk',
    table_records: 'SELECT pos, id, body, body_v2 FROM table_records WHERE tenant_id = $1 ORDER BY table_pk, pos',
  },
};
const placeholders = (sql: string) => (TEST_ENGINE === 'sqlite' ? sql.replaceAll('$1', '?') : sql);

/** Every row of the tenant's data, table by table, as text (what does not depend on keys or stamps). */
async function rowsOf(database: TempDatabase, tenant: string): Promise<Record<string, string>> {
  const id = await database.sql.value(placeholders('SELECT id FROM tenants WHERE name = $1'), tenant);
  const rows: Record<string, string> = {};
  for (const [table, sql] of Object.entries(TABLES[TEST_ENGINE])) rows[table] = JSON.stringify(await database.sql.rows(placeholders(sql), id));
  return rows;
}

/** Every stored row of the tenant, keys and stamps included: to see that it is not touched. */
async function storedRowsOf(database: TempDatabase, tenant: string): Promise<string> {
  const id = await database.sql.value(placeholders('SELECT id FROM tenants WHERE name = $1'), tenant);
  const all = [];
  for (const table of ['metrics', 'dimensions', 'users', 'reporting_records', 'dimension_values', 'statements', 'data_tables', 'stamp_times']) {
    all.push(await database.sql.rows(placeholders(`SELECT * FROM ${table} WHERE tenant_id = $1 ORDER BY 1, 2, 3`), id));
  }
  return JSON.stringify(all, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value));
}

async function template(database: TempDatabase): Promise<void> {
  // Everything the generator makes (attributions, managers, statements, archived users), and data tables.
  await seedTenant(database.store, 'golden', generateSeed({ seed: 'copy', users: 15, records: 200 }));
  await buildFixture(database.store, { tenant: 'tables', users: 4, records: 10, deals: 7 });
}

/** The tenant's data replaced by other generated data (as `compdata import --replace`). */
const replaceData = (database: TempDatabase, tenant: string, seed: string) =>
  database.store.loadTenant(tenant, { replace: true }, (writer) => writeDataset(writer, generateSeed({ seed, users: 5, records: 20 })));

const tenantCount = async (database: TempDatabase) => Number(await database.sql.value('SELECT count(*) FROM tenants'));

describe('the engine copy of a tenant', () => {
  test('copies every table: the copy exports as the template, row for row; the template is untouched', async (t) => {
    const database = await tempDatabase(t);
    await template(database);
    for (const name of ['golden', 'tables']) {
      const exported = await exportOf(database.store, name);
      const stored = await storedRowsOf(database, name);
      assert.equal(await database.store.copyTenant(name, `${name}-copy`), true);
      assert.equal(await exportOf(database.store, `${name}-copy`), exported, name);
      const [copied, original] = [await rowsOf(database, `${name}-copy`), await rowsOf(database, name)];
      for (const table of Object.keys(original)) assert.equal(copied[table], original[table], `${name}: ${table}`);
      assert.ok(JSON.parse(original.users!).length > 0);
      assert.equal(await storedRowsOf(database, name), stored, `${name} unchanged`);
      assert.equal(await exportOf(database.store, name), exported);
    }
    assert.ok(JSON.parse((await rowsOf(database, 'golden')).group_attributions!).length > 0);
    assert.ok(JSON.parse((await rowsOf(database, 'tables')).table_records!).length > 0);
    assert.equal(await database.store.copyTenant('nobody', 'orphan'), false);
    assert.equal(await database.store.findTenant('orphan'), undefined);
    await assert.rejects(database.store.copyTenant('golden', 'tables'), TenantNotEmpty);
  });

  test('a failure mid-copy (the last table refused) leaves nothing: no copy, no origin, the template as it was', async (t) => {
    const database = await tempDatabase(t);
    await template(database);
    const tenants = await tenantCount(database);
    const stored = await storedRowsOf(database, 'tables');
    await database.sql.exec(
      TEST_ENGINE === 'sqlite'
        ? `CREATE TRIGGER refuse_copy BEFORE INSERT ON table_records BEGIN SELECT RAISE(ABORT, 'refused mid-copy'); END`
        : `CREATE FUNCTION refuse_copy() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused mid-copy'; END $$;
           CREATE TRIGGER refuse_copy BEFORE INSERT ON table_records FOR EACH ROW EXECUTE FUNCTION refuse_copy()`,
    );
    await assert.rejects(copySandbox(database.store, 'tables', 'half'), /refused mid-copy/);
    await assert.rejects(database.store.copyTenant('tables', 'half'), /refused mid-copy/);
    assert.equal(await database.store.findTenant('half'), undefined);
    assert.equal(await tenantCount(database), tenants);
    assert.equal(await storedRowsOf(database, 'tables'), stored);
    await database.sql.exec(TEST_ENGINE === 'sqlite' ? 'DROP TRIGGER refuse_copy' : 'DROP TRIGGER refuse_copy ON table_records');
    assert.equal(await copySandbox(database.store, 'tables', 'half'), true);
    assert.equal(await exportOf(database.store, 'half'), await exportOf(database.store, 'tables'));
  });

  test('copies of one version of a template share one hidden origin, never listed, kept for the next copy while it holds the template\'s present version; a reset puts the created state back', async (t) => {
    const database = await tempDatabase(t);
    await template(database);
    const tenants = await tenantCount(database);
    const created = await exportOf(database.store, 'golden');
    assert.equal(await copySandbox(database.store, 'golden', 'first'), true);
    assert.equal(await copySandbox(database.store, 'golden', 'second'), true);
    assert.equal(await tenantCount(database), tenants + 3, 'two copies and one origin');
    const listed = (await database.store.listTenants({ limit: 100 })).map((tenant) => tenant.name);
    assert.deepEqual(listed, ['first', 'golden', 'second', 'tables']);

    // The template changes: a new copy gets an origin of its own; a reset of the first does not follow the template.
    await replaceData(database, 'golden', 'other');
    const changed = await exportOf(database.store, 'golden');
    assert.notEqual(changed, created);
    assert.equal(await copySandbox(database.store, 'golden', 'third'), true);
    assert.equal(await tenantCount(database), tenants + 5, 'the first origin stays while sandboxes name it');
    await database.store.deleteTenant('first');
    await replaceData(database, 'second', 'more');
    assert.equal(await resetSandbox(database.store, 'second'), 'reset');
    assert.equal(await exportOf(database.store, 'second'), created);
    assert.equal(await resetSandbox(database.store, 'third'), 'reset');
    assert.equal(await exportOf(database.store, 'third'), changed);

    await database.store.deleteTenant('second');
    assert.equal(await tenantCount(database), tenants + 2, 'the first origin went with its last copy: the template changed since');
    await database.store.deleteTenant('third');
    assert.equal(await tenantCount(database), tenants + 1, 'the origin of the present version stays without a copy');
    assert.equal(await copySandbox(database.store, 'golden', 'fourth'), true);
    assert.equal(await tenantCount(database), tenants + 2, 'the next copy takes the origin kept');
    await replaceData(database, 'fourth', 'again');
    assert.equal(await resetSandbox(database.store, 'fourth'), 'reset');
    assert.equal(await exportOf(database.store, 'fourth'), changed);
    await database.store.deleteTenant('fourth');

    // The template changes again: the next copy's new origin replaces the one no sandbox names.
    await replaceData(database, 'golden', 'last');
    const last = await exportOf(database.store, 'golden');
    assert.equal(await tenantCount(database), tenants + 1);
    assert.equal(await copySandbox(database.store, 'golden', 'fifth'), true);
    assert.equal(await tenantCount(database), tenants + 2, 'the copy and its new origin; the old origin gone');

    // The template's deletion leaves the origin a sandbox names; its last sandbox's takes it.
    await database.store.deleteTenant('golden');
    assert.equal(await tenantCount(database), tenants + 1);
    assert.equal(await resetSandbox(database.store, 'fifth'), 'reset');
    assert.equal(await exportOf(database.store, 'fifth'), last);
    await database.store.deleteTenant('fifth');
    assert.equal(await tenantCount(database), tenants - 1);

    // A template's deletion takes the origin no sandbox names.
    assert.equal(await copySandbox(database.store, 'tables', 'sixth'), true);
    await database.store.deleteTenant('sixth');
    assert.equal(await tenantCount(database), tenants, 'the origin of the present version stays');
    await database.store.deleteTenant('tables');
    assert.equal(await tenantCount(database), tenants - 2);
  });
});
