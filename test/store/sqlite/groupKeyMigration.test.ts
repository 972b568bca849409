import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { openDatabase, type Db } from '../../../src/store/sqlite/db.js';
import { invariantReads } from '../../../src/store/sqlite/invariantReads.js';
import { MIGRATIONS } from '../../../src/store/sqlite/migrations.js';
import { buildFixture } from '../../support/fixture.js';
import { tempSqliteDatabase } from '../../support/harness.js';
import { BEFORE_GROUP_KEY } from '../../support/undoMigrations.js';

/** Migration 27: group attributions in one tree keyed by user, dimension and start month. */

const groupRows = (db: Db) =>
  db.prepare('SELECT user_pk, dimension_pk, start_month, group_pk, end_month FROM group_attributions ORDER BY user_pk, dimension_pk, start_month').raw().all();
const columns = (db: Db) => db.prepare("SELECT name FROM pragma_table_info('group_attributions') ORDER BY cid").pluck().all();
const keyColumns = (db: Db) => db.prepare("SELECT name FROM pragma_table_info('group_attributions') WHERE pk > 0 ORDER BY pk").pluck().all();
const indexes = (db: Db) => db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'group_attributions' ORDER BY name").pluck().all();
const withoutRowid = (db: Db) => /WITHOUT ROWID\s*$/.test(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'group_attributions'").pluck().get() as string);

/** The migration that keys group attributions by user, dimension and start (its number: the version after it). */
const GROUP_KEY_MIGRATION = 27;

test('migration 27 keeps every group attribution, keyed by user, dimension and start month, and goes back and forth', async (t) => {
  const { dbPath, db, store } = await tempSqliteDatabase(t);
  await buildFixture(store, { tenant: 'acme', users: 4 });
  await buildFixture(store, { tenant: 'globex', users: 3 });
  const rows = groupRows(db);
  assert.ok(rows.length > 0, 'the fixtures have group attributions');
  assert.deepEqual(keyColumns(db), ['user_pk', 'dimension_pk', 'start_month']);
  assert.ok(withoutRowid(db));
  assert.deepEqual(indexes(db), []);

  let current = db;
  for (let round = 0; round < 2; round += 1) {
    current.exec(BEFORE_GROUP_KEY.sqlite);
    assert.equal(current.pragma('user_version', { simple: true }), GROUP_KEY_MIGRATION - 1);
    assert.deepEqual(columns(current), ['pk', 'user_pk', 'dimension_pk', 'group_pk', 'start_month', 'end_month']);
    assert.deepEqual(indexes(current), ['group_attributions_by_user']);
    assert.deepEqual(groupRows(current), rows, 'undone, the rows are the same');
    current.close();

    current = openDatabase(dbPath);
    assert.equal(current.pragma('user_version', { simple: true }), MIGRATIONS.length);
    assert.deepEqual(groupRows(current), rows);
    assert.deepEqual(columns(current), ['user_pk', 'dimension_pk', 'start_month', 'group_pk', 'end_month']);
    assert.deepEqual(keyColumns(current), ['user_pk', 'dimension_pk', 'start_month']);
    assert.ok(withoutRowid(current));
    assert.deepEqual(indexes(current), []);
    assert.deepEqual(await invariantReads(current).storage(), []);
  }
  current.close();
});

test('the key refuses a second period of one user and dimension with the same start', async (t) => {
  const { db, store } = await tempSqliteDatabase(t);
  await buildFixture(store, { tenant: 'acme', users: 2 });
  const [userPk, dimensionPk, start, groupPk] = groupRows(db)[0] as [number, number, number, number];
  assert.throws(
    () => db.prepare('INSERT INTO group_attributions (user_pk, dimension_pk, start_month, group_pk, end_month) VALUES (?, ?, ?, ?, NULL)').run(userPk, dimensionPk, start, groupPk),
    { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' },
  );
});

test('a database holding two periods of one user and dimension with one start is not upgraded: the open fails and changes nothing', async (t) => {
  const { dbPath, db, store } = await tempSqliteDatabase(t);
  await buildFixture(store, { tenant: 'acme', users: 2 });
  db.exec(BEFORE_GROUP_KEY.sqlite);
  // What `compdata check` reports as an overlap, and no write makes.
  db.exec('INSERT INTO group_attributions (user_pk, dimension_pk, group_pk, start_month, end_month) SELECT user_pk, dimension_pk, group_pk, start_month, start_month FROM group_attributions LIMIT 1');
  const before = groupRows(db);
  db.close();
  assert.throws(() => openDatabase(dbPath), { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
  const after = new Database(dbPath, { readonly: true });
  t.after(() => after.close());
  assert.equal(after.pragma('user_version', { simple: true }), GROUP_KEY_MIGRATION - 1);
  assert.deepEqual(groupRows(after), before);
});
