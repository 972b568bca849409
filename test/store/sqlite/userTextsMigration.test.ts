import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkInvariants } from '../../../src/store/admin/invariantCheck.js';
import { openDatabase, type Db } from '../../../src/store/sqlite/db.js';
import { invariantReads } from '../../../src/store/sqlite/invariantReads.js';
import { MIGRATIONS } from '../../../src/store/sqlite/migrations.js';
import { pagedReads } from '../../../src/store/sqlite/pagedReads.js';
import { v2Reads } from '../../../src/store/sqlite/v2Reads.js';
import { buildFixture, fixtureUser } from '../../support/fixture.js';
import { tempSqliteDatabase } from '../../support/harness.js';
import { BEFORE_USER_OBJECTS } from '../../support/undoMigrations.js';

/**
 * Migration 28 (records stored without their user object, read with their user's) on a database
 * of before: every record reads as it did, byte for byte, the rows keep their keys, and
 * `compdata check` finds nothing; then a check that finds a record that does not join back and a
 * v2 text without its user's reference.
 */
const tenantOf = (db: Db, name: string) => db.prepare<[string], number>('SELECT id FROM tenants WHERE name = ?').pluck().get(name)!;

/** Every record of the tenant as the v1 and the v2 pages read them, and the keys of the stored rows. */
function readAll(db: Db, tenant: number) {
  const empty = db.prepare<[number], string>('SELECT empty_fragment FROM tenants WHERE id = ?').pluck().get(tenant)!;
  return {
    v1: pagedReads(db).reporting(tenant, empty).rows(0, 10_000),
    v2: (v2Reads(db).statements(tenant).joined(0, 10_000) as { json: Buffer }).json.toString('utf8'),
    keys: db.prepare('SELECT tenant_id, pos, id, user_pk, month, stamp FROM reporting_records ORDER BY tenant_id, pos').raw().all(),
  };
}

/** The records as the texts stored before migration 28 give them: the whole body, then the dimension fields. */
const oldModel = (db: Db, tenant: number) =>
  db
    .prepare<[number], string>(
      `SELECT r.body || d.fragment FROM reporting_records r JOIN dimension_values d ON d.user_pk = r.user_pk AND d.month = r.month
       WHERE r.tenant_id = ? ORDER BY r.pos`,
    )
    .pluck()
    .all(tenant);

test('migration 28 cuts every stored record around its user and keeps what every read gives', async (t) => {
  const { dbPath, db, store } = await tempSqliteDatabase(t);
  await buildFixture(store, { tenant: 'acme', users: 4, records: 30 });
  await buildFixture(store, { tenant: 'globex', users: 3, records: 12 });
  await store.loadTenant('acme', {}, (writer) => writer.upsertUsers([{ ...fixtureUser('acme', 1), name: 'Renamed "One" \\ ✓' }]));
  const tenants = [tenantOf(db, 'acme'), tenantOf(db, 'globex')];
  const before = tenants.map((tenant) => readAll(db, tenant));
  assert.ok(before[0]!.v1.some((record) => record.includes('Renamed \\"One\\" \\\\ ✓')), 'the rename shows');

  db.exec(BEFORE_USER_OBJECTS.sqlite);
  for (const [i, tenant] of tenants.entries()) assert.deepEqual(oldModel(db, tenant), before[i]!.v1, 'the old model gives the same records');
  db.close();

  const migrated = openDatabase(dbPath);
  t.after(() => migrated.close());
  assert.equal(migrated.pragma('user_version', { simple: true }), MIGRATIONS.length);
  for (const [i, tenant] of tenants.entries()) assert.deepEqual(readAll(migrated, tenant), before[i], 'every record reads as before, every row keeps its key');
  const heads = migrated.prepare<[], string>('SELECT head FROM reporting_records').pluck().all();
  assert.ok(heads.every((head) => head.endsWith('"user":') && !head.includes('"name":')), 'no user object stays in a record');
  assert.deepEqual(await checkInvariants(invariantReads(migrated)), []);
  const plans = migrated.prepare("EXPLAIN QUERY PLAN SELECT pos FROM reporting_records INDEXED BY reporting_records_by_plan WHERE tenant_id = 1 AND json_extract(head || 'null}', '$.plan') = 'x'");
  assert.match(JSON.stringify(plans.all()), /reporting_records_by_plan \(tenant_id=\? AND <expr>=\?\)/, 'the plan index reads the head');
});

test('check reports a record whose texts do not join back around its user, and a v2 text of another user', async (t) => {
  const { db, store } = await tempSqliteDatabase(t);
  await buildFixture(store, { tenant: 'acme', users: 3, records: 9 });
  assert.deepEqual(await checkInvariants(invariantReads(db)), []);
  db.prepare(`UPDATE reporting_records SET head = replace(head, '"user":', '"user":null,"x":') WHERE id = 'acme-r4'`).run();
  const broken = (id: string) => [
    {
      kind: 'user-objects',
      example: `tenant "acme": reporting record "${id}": its stored parts are not its texts cut around its user's object`,
    },
  ];
  assert.deepEqual(await checkInvariants(invariantReads(db)), broken('acme-r4'));

  db.prepare(`UPDATE reporting_records SET head = replace(head, '"user":null,"x":', '"user":') WHERE id = 'acme-r4'`).run();
  assert.deepEqual(await checkInvariants(invariantReads(db)), []);
  db.prepare(`UPDATE reporting_records_v2 SET body = replace(body, 'user1@', 'someone@') WHERE pos = 7`).run();
  assert.deepEqual(await checkInvariants(invariantReads(db)), broken('acme-r7'));
});
