import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { checkInvariants } from '../../../src/store/admin/invariantCheck.js';
import { openDatabase, type Db } from '../../../src/store/sqlite/db.js';
import { invariantReads } from '../../../src/store/sqlite/invariantReads.js';
import { MIGRATIONS } from '../../../src/store/sqlite/migrations.js';
import { pagedReads } from '../../../src/store/sqlite/pagedReads.js';
import { userTextReads } from '../../../src/store/sqlite/userTextChecks.js';
import { v2Reads } from '../../../src/store/sqlite/v2Reads.js';
import { buildFixture, fixtureLine, fixtureUser } from '../../support/fixture.js';
import { tempSqliteDatabase } from '../../support/harness.js';
import { BEFORE_USER_OBJECTS } from '../../support/undoMigrations.js';

/**
 * Migration 28 (records keep their whole body and the place of their user object in it; a
 * rename writes the user's object into its user-month rows) on a database of before: every
 * record reads as it did, byte for byte, the rows keep their keys, and `compdata check` finds
 * nothing; then any sequence of renames and record loads reads as whole bodies rewritten with
 * each user's current object would; then a check that finds a record whose user object is not
 * where it says, a row whose object is not its user's, and a v2 text without its user's reference.
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

test("migration 28 marks where each record's user object stands and keeps what every read gives", async (t) => {
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
  const misplaced = migrated.prepare(
    'SELECT r.id FROM reporting_records r JOIN users u ON u.pk = r.user_pk WHERE CAST(substr(CAST(r.body AS BLOB), r.user_at, r.user_len) AS TEXT) IS NOT u.json OR r.user_rev <> 0',
  );
  assert.deepEqual(misplaced.all(), [], "every record's user object stands where it says, at revision 0");
  assert.deepEqual(await checkInvariants(invariantReads(migrated)), []);
});

/** One step of a tenant's history: a rename of a user, or a load of records of a user in a month. */
type Step = { kind: 'rename'; user: number; name: string } | { kind: 'records'; user: number; month: number; first: number; count: number };
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('rename' as const), user: fc.nat(2), name: fc.string({ unit: fc.constantFrom('a', 'é', '"', '✓', '𝄞', '\\'), maxLength: 6 }) }),
  fc.record({ kind: fc.constant('records' as const), user: fc.nat(2), month: fc.nat(3), first: fc.nat(20), count: fc.integer({ min: 1, max: 4 }) }),
);

test("any renames and loads read as whole bodies rewritten with each user's current object", async (t) => {
  const { db, store } = await tempSqliteDatabase(t);
  const brokenRecord = userTextReads(db);
  const keptObjects = db.prepare<[number], number>('SELECT count(*) FROM dimension_values WHERE tenant_id = ? AND user_json IS NOT NULL').pluck();
  const staleRecords = db
    .prepare<[number], number>(
      `SELECT count(*) FROM reporting_records r JOIN users u ON u.pk = r.user_pk
       WHERE r.tenant_id = ? AND CAST(substr(CAST(r.body AS BLOB), r.user_at, r.user_len) AS TEXT) IS NOT u.json`,
    )
    .pluck();
  let run = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(step, { maxLength: 8 }), async (steps) => {
      const tenant = `t${run++}`;
      await buildFixture(store, { tenant, users: 3, records: 12 });
      for (const s of steps) {
        await store.loadTenant(tenant, {}, (writer) =>
          s.kind === 'rename'
            ? writer.upsertUsers([{ ...fixtureUser(tenant, s.user), name: `N${s.name}` }])
            : writer.upsertReportingRecords(
                Array.from({ length: s.count }, (_, i) => ({ ...fixtureLine(tenant, s.first + i, 3), user_id: `u${s.user}`, date: `2026-0${s.month + 1}-15` })),
              ),
        );
      }
      const id = tenantOf(db, tenant);
      const users = new Map(db.prepare<[number], [string, string]>('SELECT id, json FROM users WHERE tenant_id = ?').raw().all(id));
      const read = readAll(db, id).v1;
      for (const record of read) {
        const { user } = JSON.parse(record) as { user: { id: string } };
        assert.equal(JSON.stringify(user), users.get(user.id), "each record holds its user's current object");
      }
      assert.deepEqual(read, wholeBodies(db, id), 'the pages read what whole bodies give');
      assert.equal(brokenRecord(id), undefined, 'the check finds every record in place');
      await store.compact();
      assert.deepEqual(readAll(db, id).v1, read, 'a compacted store reads the same records');
      assert.equal(staleRecords.get(id), 0, 'compact writes the current user object into every record');
      assert.equal(keptObjects.get(id), 0, 'and drops the objects of the user-month rows');
      assert.equal(brokenRecord(id), undefined, 'the check finds every compacted record in place');
    }),
    { numRuns: 25 },
  );
});

/** The tenant's records as whole bodies rewritten with their user's current object give them (the text of records written before migration 28). */
const wholeBodies = (db: Db, tenant: number) =>
  db
    .prepare<[number], string>(
      `SELECT concat(substr(CAST(r.body AS BLOB), 1, r.user_at - 1), u.json, substr(CAST(r.body AS BLOB), r.user_at + r.user_len), d.fragment)
       FROM reporting_records r JOIN dimension_values d ON d.user_pk = r.user_pk AND d.month = r.month JOIN users u ON u.pk = r.user_pk
       WHERE r.tenant_id = ? ORDER BY r.pos`,
    )
    .pluck()
    .all(tenant);

test("check reports a record whose user object is not where it says, a row whose object is not its user's, and a v2 text of another user", async (t) => {
  const { db, store } = await tempSqliteDatabase(t);
  await buildFixture(store, { tenant: 'acme', users: 3, records: 9 });
  assert.deepEqual(await checkInvariants(invariantReads(db)), []);
  const broken = (id: string) => [
    {
      kind: 'user-objects',
      example: `tenant "acme": reporting record "${id}": its stored parts are not its texts cut around its user's object`,
    },
  ];
  db.prepare(`UPDATE reporting_records SET user_at = user_at + 1 WHERE id = 'acme-r4'`).run();
  assert.deepEqual(await checkInvariants(invariantReads(db)), broken('acme-r4'));
  db.prepare(`UPDATE reporting_records SET user_at = user_at - 1 WHERE id = 'acme-r4'`).run();
  assert.deepEqual(await checkInvariants(invariantReads(db)), []);

  await store.loadTenant('acme', {}, (writer) => writer.upsertUsers([{ ...fixtureUser('acme', 1), name: 'Renamed' }]));
  assert.deepEqual(await checkInvariants(invariantReads(db)), []);
  db.prepare(`UPDATE dimension_values SET user_json = replace(user_json, 'Renamed', 'Other') WHERE month = (SELECT month FROM reporting_records WHERE id = 'acme-r1')`).run();
  assert.deepEqual(await checkInvariants(invariantReads(db)), broken('acme-r1'));
  db.prepare(`UPDATE dimension_values SET user_json = replace(user_json, 'Other', 'Renamed')`).run();
  assert.deepEqual(await checkInvariants(invariantReads(db)), []);

  db.prepare(`UPDATE reporting_records_v2 SET body = replace(body, 'user1@', 'someone@') WHERE pos = 7`).run();
  assert.deepEqual(await checkInvariants(invariantReads(db)), broken('acme-r7'));
});
