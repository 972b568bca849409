import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Store } from '../../../src/store/store.js';
import { buildFixture } from '../../support/fixture.js';
import { tempDatabase, withOtherStore } from '../../support/harness.js';
import { BEFORE_SYNC } from '../../support/undoMigrations.js';

/** Every change of the tenant's reporting records from `since`, read 7 at a time: the records and the last token. */
async function syncAll(store: Store, key: string, since: string): Promise<{ records: { id: string }[]; token: string }> {
  const principal = (await store.authenticate(key))!;
  const records: { id: string }[] = [];
  for (let token = since; ; ) {
    const page = await store.changes(principal, { kind: 'reporting' }, { since: token, limit: 7 });
    if (typeof page !== 'object') assert.fail(page);
    if (page.count > 0) records.push(...(JSON.parse(`[${page.json.toString()}]`) as { id: string }[]));
    if (page.syncToken !== undefined) return { records, token: page.syncToken };
    token = page.next!;
  }
}

test('a database from before incremental sync is migrated: its records are there in a first sync, and later changes are synced', async (t) => {
  const { engine, database, store, sql } = await tempDatabase(t);
  const fixture = await buildFixture(store, { tenant: 'acme', records: 25, users: 3 });
  await buildFixture(store, { tenant: 'globex', records: 4 });
  const full = await store.page((await store.authenticate(fixture.key))!, { kind: 'reporting' }, { offset: 0n, limit: 2000 });
  await sql.exec(BEFORE_SYNC[engine]);

  await withOtherStore(database, async (migrated) => {
    const first = await syncAll(migrated, fixture.key, '0');
    assert.ok(typeof full === 'object');
    assert.deepEqual(first.records, JSON.parse(`[${full.json.toString()}]`));
    const put = await migrated.bulkUpsert((await migrated.authenticate(fixture.key))!, [
      { kind: 'group', user: 'user1@acme.example', dimension: 'segment', group: 'SMB', start: 2026 * 12, end: 2026 * 12 + 1 },
    ]);
    assert.ok('written' in put);
    const changed = await syncAll(migrated, fixture.key, first.token);
    // u1 holds records 1, 4, 7, ...; 2026-01 and 2026-02 are i % 12 of 0 and 1.
    const expected = Array.from({ length: 25 }, (_, i) => i).filter((i) => i % 3 === 1 && i % 12 <= 1);
    assert.equal(expected.length, 2);
    assert.deepEqual(changed.records.map((r) => r.id).sort(), expected.map((i) => `acme-r${i}`).sort());
  });
});
