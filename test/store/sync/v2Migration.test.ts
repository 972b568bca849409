import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Principal } from '../../../src/store/vocabulary/tenancy.js';
import type { Store } from '../../../src/store/store.js';
import { buildFixture } from '../../support/fixture.js';
import { tempDatabase, withOtherStore } from '../../support/harness.js';
import { BEFORE_V2 } from '../../support/undoMigrations.js';
import { withoutTime } from '../../support/v2Mapping.js';

/** Every v2 record of a structure, read 6 at a time. */
async function walk(store: Store, principal: Principal, structure: Parameters<Store['v2Page']>[1]): Promise<Record<string, unknown>[]> {
  const records: Record<string, unknown>[] = [];
  for (let startId: string | undefined; ; ) {
    const page = await store.v2Page(principal, structure, { startId, limit: 6 });
    if (typeof page !== 'object') assert.fail(page);
    records.push(...(JSON.parse(`[${page.json.toString()}]`) as Record<string, unknown>[]));
    if (page.nextStartId === undefined) return records;
    startId = page.nextStartId;
  }
}

test('a database from before the v2 reads is migrated: its v2 records are those a new load writes, dated at the upgrade, and later changes date after it', async (t) => {
  const { engine, database, store, sql } = await tempDatabase(t);
  const fixture = await buildFixture(store, { tenant: 'acme', records: 25, users: 3, deals: 5 });
  const principal = (await store.authenticate(fixture.key))!;
  const written = { statements: await walk(store, principal, { kind: 'statements' }), deals: await walk(store, principal, { kind: 'table', key: 'deals' }) };
  await sql.exec(BEFORE_V2[engine]);

  await withOtherStore(database, async (migrated) => {
    const again = (await migrated.authenticate(fixture.key))!;
    const statements = (await walk(migrated, again, { kind: 'statements' })).map(withoutTime);
    const deals = (await walk(migrated, again, { kind: 'table', key: 'deals' })).map(withoutTime);
    assert.deepEqual(statements.map((record) => record.fields), written.statements.map((record) => withoutTime(record).fields));
    assert.deepEqual(deals.map((record) => record.fields), written.deals.map((record) => withoutTime(record).fields));
    const upgraded = new Set([...statements, ...deals].map((record) => record.time));
    assert.equal(upgraded.size, 1, 'every record stored before the upgrade carries its time');
    const [upgradeTime] = upgraded;

    const put = await migrated.bulkUpsert(again, [{ kind: 'group', user: 'user1@acme.example', dimension: 'segment', group: 'SMB', start: 2026 * 12, end: 2026 * 12 + 1 }]);
    assert.ok('written' in put);
    const changed = await migrated.v2Page(again, { kind: 'statements' }, { limit: 100, modifiedAfter: upgradeTime });
    if (typeof changed !== 'object') assert.fail(changed);
    const ids = (JSON.parse(`[${changed.json.toString()}]`) as Record<string, unknown>[]).map((record) => record['standard.id']);
    // u1 holds records 1, 4, 7, ...; 2026-01 and 2026-02 are i % 12 of 0 and 1: records 1 and 13.
    assert.deepEqual(ids, ['acme-r1', 'acme-r13']);
  });
});
