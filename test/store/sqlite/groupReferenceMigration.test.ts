import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDatabase, type Db } from '../../../src/store/sqlite/db.js';
import { invariantReads } from '../../../src/store/sqlite/invariantReads.js';
import { MIGRATIONS } from '../../../src/store/sqlite/migrations.js';
import { buildFixture } from '../../support/fixture.js';
import { tempSqliteDatabase } from '../../support/harness.js';
import { BEFORE_GROUP_REFERENCE } from '../../support/undoMigrations.js';

/** Every group attribution as `[user_pk, dimension_pk, group_pk, start_month, end_month]`, in key order (migration 27 drops `pk`). */
const groupRows = (db: Db) =>
  db.prepare('SELECT user_pk, dimension_pk, group_pk, start_month, end_month FROM group_attributions ORDER BY user_pk, dimension_pk, start_month').raw().all();
const indexes = (db: Db) => db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'group_attributions' ORDER BY name").pluck().all();
const parents = (db: Db) => db.prepare("SELECT DISTINCT \"table\" FROM pragma_foreign_key_list('group_attributions') ORDER BY 1").pluck().all();

test('migration 24 keeps every group attribution and drops the index by group and the foreign key to groups', async (t) => {
  const { dbPath, db, store } = await tempSqliteDatabase(t);
  await buildFixture(store, { tenant: 'acme', users: 4 });
  db.exec(BEFORE_GROUP_REFERENCE.sqlite);
  const before = groupRows(db);
  assert.ok(before.length > 0, 'the fixture has group attributions');
  assert.deepEqual(indexes(db), ['group_attributions_by_group', 'group_attributions_by_user']);
  assert.deepEqual(parents(db), ['dimensions', 'groups', 'users']);
  db.close();

  const migrated = openDatabase(dbPath);
  t.after(() => migrated.close());
  assert.equal(migrated.pragma('user_version', { simple: true }), MIGRATIONS.length);
  assert.deepEqual(groupRows(migrated), before);
  assert.deepEqual(indexes(migrated), [], 'and migration 27 keys the table by user, dimension and start: no index beside it');
  assert.deepEqual(parents(migrated), ['dimensions', 'users']);
  assert.deepEqual(await invariantReads(migrated).storage(), []);
});

test('check reports a group attribution whose group is not a group of its dimension', async (t) => {
  const { db, store } = await tempSqliteDatabase(t);
  await buildFixture(store, { tenant: 'acme', users: 2 });
  assert.deepEqual(await invariantReads(db).storage(), []);
  const [userPk, dimensionPk, start] = db
    .prepare('SELECT user_pk, dimension_pk, start_month FROM group_attributions ORDER BY user_pk, dimension_pk, start_month LIMIT 1')
    .raw()
    .get() as [number, number, number];
  const setGroup = db.prepare('UPDATE group_attributions SET group_pk = ? WHERE user_pk = ? AND dimension_pk = ? AND start_month = ?');
  const otherGroup = db
    .prepare("INSERT INTO groups (dimension_pk, name) SELECT pk, 'Elsewhere' FROM dimensions WHERE pk <> ? LIMIT 1 RETURNING pk")
    .pluck()
    .get(dimensionPk) as number;
  setGroup.run(otherGroup, userPk, dimensionPk, start);
  assert.deepEqual(await invariantReads(db).storage(), [
    {
      kind: 'foreign-keys',
      example: `the row (user ${userPk}, dimension ${dimensionPk}, start ${start}) of group_attributions refers to a missing row of groups (none of its dimension)`,
    },
  ]);
  setGroup.run(1_000_000, userPk, dimensionPk, start);
  assert.equal((await invariantReads(db).storage()).length, 1, 'a group that is not there at all');
});

test('deleting a tenant deletes its group attributions and groups, and leaves no attribution without its group', async (t) => {
  const { db, store } = await tempSqliteDatabase(t);
  await buildFixture(store, { tenant: 'acme', users: 2 });
  await buildFixture(store, { tenant: 'globex', users: 2 });
  const tenantOf = (name: string) => db.prepare('SELECT id FROM tenants WHERE name = ?').pluck().get(name) as number;
  const acme = tenantOf('acme');
  assert.ok(await store.deleteTenant('acme'));
  const left = db
    .prepare('SELECT count(*) FROM group_attributions a JOIN users u ON u.pk = a.user_pk WHERE u.tenant_id = ?')
    .pluck()
    .get(acme);
  assert.equal(left, 0);
  assert.ok(groupRows(db).length > 0, "globex's stay");
  assert.deepEqual(await invariantReads(db).storage(), []);
});
