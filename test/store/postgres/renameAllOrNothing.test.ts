import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { UserUpsert } from '../../../src/domain/userItems.js';
import type { Store } from '../../../src/store/store.js';
import { buildFixture } from '../../support/fixture.js';
import { tempDatabase } from '../../support/harness.js';
import { ON_CITUS, onlyOn } from '../../support/testDatabases.js';

/** The tenant's records as a page reads them, with a principal looked up now. */
async function recordsOf(store: Store, key: string): Promise<string> {
  const page = await store.page((await store.authenticate(key))!, { kind: 'reporting' }, { offset: 0n, limit: 100 });
  if (typeof page !== 'object') assert.fail(page);
  return page.json.toString();
}

test(
  'PostgreSQL, all or nothing: a rename whose user-month rows cannot be written leaves the users and every record as they were',
  { skip: onlyOn('postgres') || (ON_CITUS && 'Citus refuses a trigger on a distributed table unless told otherwise') },
  async (t) => {
    const { store, sql } = await tempDatabase(t, 'postgres');
    const fixture = await buildFixture(store, { tenant: 'acme', records: 12, users: 3 });
    const before = await recordsOf(store, fixture.key);
    const users = await sql.rows('SELECT id, json FROM users ORDER BY pk');
    // The write of the user-month rows fails, as a full disk or a bug would make it.
    await sql.exec(`
      CREATE FUNCTION refuse_user_objects() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$;
      CREATE TRIGGER refuse_user_objects BEFORE UPDATE OF user_json ON dimension_values FOR EACH ROW EXECUTE FUNCTION refuse_user_objects();
    `);
    const principal = (await store.authenticate(fixture.key))!;
    const items: UserUpsert[] = [
      { email: 'user0@acme.example', fields: {}, attributes: { tier: 'gold' } },
      { email: 'user1@acme.example', fields: { name: 'Renamed' }, attributes: {} },
    ];
    await assert.rejects(store.upsertUsers(principal, items));
    assert.deepEqual(await sql.rows('SELECT id, json FROM users ORDER BY pk'), users, 'no user written');
    assert.equal(Number(await sql.value(`SELECT count(*) FROM users WHERE attributes <> '{}'`)), 0, 'not even the item before it');
    assert.equal(await recordsOf(store, fixture.key), before, 'every record as it was');

    await sql.exec('DROP TRIGGER refuse_user_objects ON dimension_values');
    assert.ok('written' in (await store.upsertUsers((await store.authenticate(fixture.key))!, items)));
    assert.notEqual(await recordsOf(store, fixture.key), before, 'the same bulk then goes through');
  },
);
