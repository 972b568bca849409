import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Principal } from '../../../src/store/vocabulary/tenancy.js';
import type { Store } from '../../../src/store/store.js';
import { buildFixture } from '../../support/fixture.js';
import { tempDatabase, withOtherStore } from '../../support/harness.js';
import { BEFORE_STANDARD_ID, BEFORE_V2 } from '../../support/undoMigrations.js';
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

test('a database whose data table records key their v2 id datatable.id is migrated: the id is keyed standard.id, nothing else changes, and the data has a new version', async (t) => {
  const { engine, database, store, sql } = await tempDatabase(t);
  const fixture = await buildFixture(store, { tenant: 'acme', records: 6, users: 2, deals: 9 });
  const principal = (await store.authenticate(fixture.key))!;
  const deals = { kind: 'table', key: 'deals' } as const;
  const written = await walk(store, principal, deals);
  const before = await store.v2Page(principal, deals, { limit: 100 });
  if (typeof before !== 'object') assert.fail(before);
  await sql.exec(BEFORE_STANDARD_ID[engine]);
  const old = await store.v2Page(principal, deals, { limit: 1 });
  if (typeof old !== 'object') assert.fail(old);
  assert.deepEqual(Object.keys(JSON.parse(old.json.toString()) as object)[0], 'datatable.id', 'the records are keyed as before the upgrade');

  await withOtherStore(database, async (migrated) => {
    const again = (await migrated.authenticate(fixture.key))!;
    const records = await walk(migrated, again, deals);
    // The same texts a new load writes, with the same times: only the key of the id was rewritten.
    assert.deepEqual(records, written);
    assert.deepEqual(records.map((record) => Object.keys(record)[0]), written.map(() => 'standard.id'));
    assert.ok(records.every((record) => !('datatable.id' in record)));
    const after = await migrated.v2Page(again, deals, { limit: 100 });
    if (typeof after !== 'object') assert.fail(after);
    assert.notEqual(after.version, before.version, 'a page cached before the upgrade is not answered 304');
  });
});
