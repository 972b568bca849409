import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDatabase, type Db } from '../../../src/store/sqlite/db.js';
import { MIGRATIONS } from '../../../src/store/sqlite/migrations.js';
import { buildFixture } from '../../support/fixture.js';
import { tempSqliteDatabase } from '../../support/harness.js';
import { BEFORE_FILTERS, BEFORE_KEY_SCOPES, BEFORE_LAST_DELETED_TENANT, BEFORE_SYNC, BEFORE_USER_ATTRIBUTES } from '../../support/undoMigrations.js';

/** Every attribution row as `[user_pk, start_month, end_month]`: managers, then groups. */
const rowsOf = (db: Db) => [
  ...db.prepare('SELECT user_pk, start_month, end_month FROM manager_attributions ORDER BY pk').raw().all(),
  ...db.prepare('SELECT user_pk, start_month, end_month FROM group_attributions ORDER BY user_pk, dimension_pk, start_month').raw().all(),
] as [number, number | null, number | null][];

test('migration 3 deletes the attributions that hold no month of 0000-01..9999-12, and only those', async (t) => {
  const { dbPath, db, store } = await tempSqliteDatabase(t);
  const fixture = await buildFixture(store, { tenant: 'acme', users: 3 });
  const users = db.prepare('SELECT pk FROM users WHERE tenant_id = ? ORDER BY pk').pluck().all(fixture.tenantId) as number[];
  const [u0, u1, u2] = users as [number, number, number];
  const region = db.prepare("SELECT pk FROM dimensions WHERE key = 'region'").pluck().get() as number;
  const group = db.prepare('SELECT pk FROM groups WHERE dimension_pk = ? LIMIT 1').pluck().get(region) as number;
  // What an override left before issue 15, beside rows at the very edges that must stay.
  const manager = db.prepare('INSERT INTO manager_attributions (user_pk, manager_pk, start_month, end_month) VALUES (?, ?, ?, ?)');
  const groupRow = db.prepare('INSERT INTO group_attributions (user_pk, dimension_pk, group_pk, start_month, end_month) VALUES (?, ?, ?, ?, ?)');
  manager.run(u1, u2, null, -1);
  manager.run(u1, u2, 120_000, null);
  manager.run(u1, u0, 0, 119_999);
  manager.run(u2, u0, null, 0);
  manager.run(u2, u1, 119_999, null);
  groupRow.run(u1, region, group, 120_000, null);
  groupRow.run(u1, region, group, 119_999, null);
  const before = rowsOf(db);
  db.exec(BEFORE_SYNC.sqlite); // what migrations 5 and 6 add again
  db.exec('ALTER TABLE tenants DROP COLUMN data_version'); // what migration 4 adds again
  db.pragma('user_version = 2');
  db.close();

  const migrated = openDatabase(dbPath);
  t.after(() => migrated.close());
  assert.equal(migrated.pragma('user_version', { simple: true }), MIGRATIONS.length);
  const outside = ([, start, end]: [number, number | null, number | null]) => (end !== null && end < 0) || (start !== null && start > 119_999);
  assert.equal(before.filter(outside).length, 3, 'the bad rows were there');
  assert.deepEqual(rowsOf(migrated), before.filter((row) => !outside(row)));
});

test('migration 4 gives every existing tenant a data version, each its own', async (t) => {
  const { dbPath, db, store } = await tempSqliteDatabase(t);
  await buildFixture(store, { tenant: 'acme' });
  await buildFixture(store, { tenant: 'globex' });
  db.exec(BEFORE_SYNC.sqlite);
  db.exec('ALTER TABLE tenants DROP COLUMN data_version');
  db.pragma('user_version = 3');
  db.close();

  const migrated = openDatabase(dbPath);
  t.after(() => migrated.close());
  assert.equal(migrated.pragma('user_version', { simple: true }), MIGRATIONS.length);
  const versions = migrated.prepare('SELECT data_version FROM tenants').pluck().safeIntegers().all() as bigint[];
  assert.equal(versions.length, 2);
  assert.equal(new Set(versions).size, 2, 'two tenants, two versions');
  assert.ok(!versions.includes(0n), 'random, not the column default');
});

test('migration 6 adds the indexes of the reporting filters to a database without them', async (t) => {
  const { dbPath, db, store } = await tempSqliteDatabase(t);
  await buildFixture(store, { tenant: 'acme', records: 30 });
  const filterIndexes = (on: Db) =>
    on
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name IN ('reporting_records_by_user_position', 'reporting_records_by_plan', 'reporting_records_by_month') ORDER BY name")
      .pluck()
      .all();
  db.exec(BEFORE_FILTERS.sqlite);
  db.close();

  const migrated = openDatabase(dbPath);
  t.after(() => migrated.close());
  assert.equal(migrated.pragma('user_version', { simple: true }), MIGRATIONS.length);
  assert.deepEqual(filterIndexes(migrated), ['reporting_records_by_month', 'reporting_records_by_plan', 'reporting_records_by_user_position']);
});

test('migration 7 gives every existing user no custom attributes', async (t) => {
  const { dbPath, db, store } = await tempSqliteDatabase(t);
  await buildFixture(store, { tenant: 'acme', users: 3 });
  db.exec(BEFORE_USER_ATTRIBUTES.sqlite);
  db.close();

  const migrated = openDatabase(dbPath);
  t.after(() => migrated.close());
  assert.equal(migrated.pragma('user_version', { simple: true }), MIGRATIONS.length);
  assert.deepEqual(migrated.prepare('SELECT attributes FROM users').pluck().all(), ['{}', '{}', '{}']);
});

test('migration 10 gives every existing key the write scope', async (t) => {
  const { dbPath, db, store } = await tempSqliteDatabase(t);
  await buildFixture(store, { tenant: 'acme' });
  db.exec(BEFORE_KEY_SCOPES.sqlite);
  db.close();

  const migrated = openDatabase(dbPath);
  t.after(() => migrated.close());
  assert.deepEqual(migrated.prepare('SELECT scope FROM api_keys').pluck().all(), ['write']);
});

test('migration 18 keeps the largest tenant id in use as the largest deleted: no id after it is given twice', async (t) => {
  const { dbPath, db, store } = await tempSqliteDatabase(t);
  for (const name of ['acme', 'beta', 'gamma']) await store.createKey(name);
  db.exec(BEFORE_LAST_DELETED_TENANT.sqlite);
  db.close();

  const migrated = openDatabase(dbPath);
  t.after(() => migrated.close());
  const largest = migrated.prepare('SELECT max(id) FROM tenants').pluck().get() as number;
  assert.deepEqual(migrated.prepare('SELECT id FROM last_deleted_tenant').pluck().all(), [largest]);
});
