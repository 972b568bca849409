import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Principal } from '../../../src/store/vocabulary/tenancy.js';
import type { Store } from '../../../src/store/store.js';
import { buildFixture } from '../../support/fixture.js';
import { tempDatabase, withOtherStore } from '../../support/harness.js';
import { onlyOn } from '../../support/testDatabases.js';
import { BEFORE_USER_OBJECTS, runUndo } from '../../support/undoMigrations.js';

/** The texts a tenant reads: its v1 records (a page, a filtered page, a sync from the start) and v2 statements. */
async function readsOf(store: Store, key: string): Promise<string[]> {
  const principal: Principal = (await store.authenticate(key))!;
  const texts = [];
  for (const source of [{ kind: 'reporting' }, { kind: 'reporting', plan: 'AE 2026', user: 'user1@acme.example' }] as const) {
    const page = await store.page(principal, source, { offset: 0n, limit: 1000 });
    if (typeof page !== 'object') assert.fail(page);
    texts.push(page.json.toString());
  }
  const changes = await store.changes(principal, { kind: 'reporting' }, { since: '0', limit: 1000 });
  if (typeof changes !== 'object') assert.fail(String(changes));
  texts.push(changes.json.toString());
  const v2 = await store.v2Page(principal, { kind: 'statements' }, { limit: 1000 });
  if (typeof v2 !== 'object') assert.fail(v2);
  texts.push(v2.json.toString());
  return texts;
}

test(
  'PostgreSQL, a database whose records hold their user objects is migrated: the objects are kept per user and month, every read answers the same bytes, check finds nothing, and a rename then writes no record',
  { skip: onlyOn('postgres') },
  async (t) => {
    const { engine, database, store, sql } = await tempDatabase(t, 'postgres');
    const fixture = await buildFixture(store, { tenant: 'acme', records: 30, users: 4, deals: 3 });
    const renamed = await store.upsertUsers((await store.authenticate(fixture.key))!, [{ email: 'user1@acme.example', fields: { name: 'Ünï "One"' }, attributes: {} }]);
    assert.ok('written' in renamed);
    const before = await readsOf(store, fixture.key);
    // A statement at a time: Citus sends a DDL statement to its workers as the text it came in.
    await runUndo(sql, BEFORE_USER_OBJECTS[engine]);
    assert.equal(Number(await sql.value('SELECT count(*) FROM reporting_records WHERE body IS NULL')), 0, 'the records hold their whole bodies');
    // A record whose user and month lost their row (a broken database; its user, u2, is in no
    // group) read with the tenant's empty fields, and still does.
    const lost = await sql.value(`SELECT user_pk FROM reporting_records WHERE id = 'acme-r2'`);
    await sql.rows(`DELETE FROM dimension_values WHERE user_pk = ? AND month = (SELECT month FROM reporting_records WHERE id = 'acme-r2')`, lost);

    await withOtherStore(database, async (migrated) => {
      assert.deepEqual(await readsOf(migrated, fixture.key), before, 'the same bytes');
      assert.deepEqual(await migrated.check(), []);
      const stamps = await sql.value('SELECT max(stamp) FROM reporting_records');
      const again = await migrated.upsertUsers((await migrated.authenticate(fixture.key))!, [{ email: 'user1@acme.example', fields: { name: 'One' }, attributes: {} }]);
      assert.ok('written' in again);
      assert.equal(await sql.value('SELECT max(stamp) FROM reporting_records'), stamps, 'a rename writes no record');
      const reads = await readsOf(migrated, fixture.key);
      assert.equal(reads[0]!.split('"name":"One"').length - 1, 8, 'the user of records 1, 5, …, 29 reads renamed');
    });
  },
);
