import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Principal } from '../../../src/store/vocabulary/tenancy.js';
import type { Store } from '../../../src/store/store.js';
import { buildFixture } from '../../support/fixture.js';
import { tempDatabase, withOtherStore } from '../../support/harness.js';
import { BEFORE_STATEMENTS } from '../../support/undoMigrations.js';
import { defaultStatus, statementsOf, withoutTime } from '../../support/v2Mapping.js';

/** Every v2 statement record, read 7 at a time. */
async function walk(store: Store, principal: Principal): Promise<Record<string, any>[]> {
  const records: Record<string, any>[] = [];
  for (let startId: string | undefined; ; ) {
    const page = await store.v2Page(principal, { kind: 'statements' }, { startId, limit: 7 });
    if (typeof page !== 'object') assert.fail(page);
    records.push(...(JSON.parse(`[${page.json.toString()}]`) as Record<string, any>[]));
    if (page.nextStartId === undefined) return records;
    startId = page.nextStartId;
  }
}

test('a database from before statements were kept is migrated: each statement is made from its lines, with the default status of its month, dated as its lines', async (t) => {
  const { engine, database, store, sql } = await tempDatabase(t);
  const fixture = await buildFixture(store, { tenant: 'acme', records: 30, users: 3, deals: 0 });
  const principal = (await store.authenticate(fixture.key))!;
  const written = await walk(store, principal);
  await sql.exec(BEFORE_STATEMENTS[engine]);

  await withOtherStore(database, async (migrated) => {
    const again = (await migrated.authenticate(fixture.key))!;
    const records = await walk(migrated, again);
    assert.deepEqual(records.map((record) => withoutTime(record).fields), written.map((record) => withoutTime(record).fields));
    // The lines as v1 writes them (the fields statementsOf reads), from their v2 texts.
    const lines = records.map((record) => ({
      date: record['standard.date'],
      user: record['standard.user'],
      payment: record['standard.payment'].value,
      payment_currency: record['standard.payment'].currency,
    }));
    const statement = statementsOf(lines);
    for (const record of records) {
      assert.equal(record['standard.status'], defaultStatus(String(record['standard.date']).slice(0, 7)));
      assert.deepEqual(record['standard.total_commission'], statement(lines[records.indexOf(record)]!)['standard.total_commission']);
      assert.equal(record['standard.last_modified_at'], written[records.indexOf(record)]!['standard.last_modified_at'], 'the upgrade moves no time');
    }
  });
});
