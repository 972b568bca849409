import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildFixture } from '../../support/fixture.js';
import { tempDatabase, withOtherStore } from '../../support/harness.js';
import { onlyOn } from '../../support/testDatabases.js';
import { BEFORE_GROUP_INDEX_DROPPED, BEFORE_GROUP_KEYS_UNHELD, runUndo } from '../../support/undoMigrations.js';

/**
 * PostgreSQL's migration 41: group attributions hold no foreign key to their user and their
 * group; the deletions of users and groups delete them by the one kept to their dimension, and
 * `compdata check` reports one left without its user or its group. Migration 42: nor an index by
 * group.
 */
const skip = onlyOn('postgres');
type Sql = Awaited<ReturnType<typeof tempDatabase>>['sql'];

const parents = async (sql: Sql) =>
  (
    await sql.rows(
      `SELECT confrelid::regclass::text FROM pg_constraint WHERE conrelid = 'group_attributions'::regclass AND contype = 'f' ORDER BY 1`,
    )
  ).map(([parent]) => parent);
const indexes = async (sql: Sql) =>
  (await sql.rows(`SELECT indexname FROM pg_indexes WHERE tablename = 'group_attributions' ORDER BY 1`)).map(([name]) => name);
const groupRows = (sql: Sql) => sql.rows('SELECT tenant_id, pk, user_pk, dimension_pk, group_pk, start_month, end_month FROM group_attributions ORDER BY tenant_id, pk');
const storageProblems = (database: string) => withOtherStore(database, async (store) => (await store.check()).filter((problem) => problem.kind === 'foreign-keys'));

test('migration 41 keeps every group attribution and drops their foreign keys to users and groups', { skip }, async (t) => {
  const { database, store, sql } = await tempDatabase(t, 'postgres');
  await buildFixture(store, { tenant: 'acme', users: 4 });
  await runUndo(sql, BEFORE_GROUP_KEYS_UNHELD.postgres);
  const before = await groupRows(sql);
  assert.ok(before.length > 0, 'the fixture has group attributions');
  assert.deepEqual(await parents(sql), ['dimensions', 'groups', 'users']);

  await withOtherStore(database, async () => {}); // opening migrates
  assert.deepEqual(await groupRows(sql), before);
  assert.deepEqual(await parents(sql), ['dimensions']);
  assert.deepEqual(await storageProblems(database), []);
});

test('migration 42 keeps every group attribution and drops their index by group', { skip }, async (t) => {
  const { database, store, sql } = await tempDatabase(t, 'postgres');
  await buildFixture(store, { tenant: 'acme', users: 4 });
  const migrated = await indexes(sql);
  await runUndo(sql, BEFORE_GROUP_INDEX_DROPPED.postgres);
  const before = await groupRows(sql);
  assert.ok(before.length > 0, 'the fixture has group attributions');
  assert.deepEqual(await indexes(sql), ['group_attributions_by_group', 'group_attributions_by_user', 'group_attributions_pkey']);

  await withOtherStore(database, async () => {}); // opening migrates
  assert.deepEqual(await groupRows(sql), before);
  assert.deepEqual(await indexes(sql), migrated);
  assert.deepEqual(migrated, ['group_attributions_by_user', 'group_attributions_pkey']);
  assert.deepEqual(await storageProblems(database), []);
});

test('check reports a group attribution whose user or group is not there', { skip }, async (t) => {
  const { database, store, sql } = await tempDatabase(t, 'postgres');
  await buildFixture(store, { tenant: 'acme', users: 2 });
  assert.deepEqual(await storageProblems(database), []);
  const [[tenantId, pk, userPk, groupPk]] = (await sql.rows('SELECT tenant_id, pk, user_pk, group_pk FROM group_attributions ORDER BY pk LIMIT 1')) as [[number, number, number, number]];
  await sql.exec(`UPDATE group_attributions SET user_pk = 1000000 WHERE tenant_id = ${tenantId} AND pk = ${pk}`);
  assert.deepEqual(await storageProblems(database), [{ kind: 'foreign-keys', example: 'a row of group_attributions refers to a missing row of users' }]);
  await sql.exec(`UPDATE group_attributions SET user_pk = ${userPk}, group_pk = 1000000 WHERE tenant_id = ${tenantId} AND pk = ${pk}`);
  assert.deepEqual(await storageProblems(database), [{ kind: 'foreign-keys', example: 'a row of group_attributions refers to a missing row of groups' }]);
  await sql.exec(`UPDATE group_attributions SET group_pk = ${groupPk} WHERE tenant_id = ${tenantId} AND pk = ${pk}`);
  assert.deepEqual(await storageProblems(database), []);
});

test("replacing a tenant's data and deleting a tenant leave no group attribution of theirs", { skip }, async (t) => {
  const { store, sql } = await tempDatabase(t, 'postgres');
  await buildFixture(store, { tenant: 'acme', users: 2 });
  await buildFixture(store, { tenant: 'globex', users: 2 });
  const tenantOf = async (name: string) => Number(await sql.value('SELECT id FROM tenants WHERE name = ?', name));
  const [acme, globex] = [await tenantOf('acme'), await tenantOf('globex')];
  const countOf = async (tenantId: number) => Number(await sql.value('SELECT count(*) FROM group_attributions WHERE tenant_id = ?', tenantId));
  const globexRows = await countOf(globex);
  assert.ok((await countOf(acme)) > 0 && globexRows > 0);

  await store.loadTenant('acme', { replace: true }, async () => {});
  assert.equal(await countOf(acme), 0, 'a replace deletes the users, then the dimensions and with them the attributions');
  await buildFixture(store, { tenant: 'acme', users: 2 });
  assert.ok(await store.deleteTenant('acme'));
  assert.equal(await countOf(acme), 0);
  assert.equal(await countOf(globex), globexRows, "the other tenant's are kept");
});
