import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateSeed } from '../../../src/dataset/generateSeed.js';
import { seedElements } from '../../../src/dataset/seedElements.js';
import { ElementWriter } from '../../../src/dataset/elementWriter.js';
import { parseMonth } from '../../../src/domain/months.js';
import type { Principal } from '../../../src/store/vocabulary/tenancy.js';
import type { Source } from '../../../src/store/vocabulary/readShapes.js';
import type { Store } from '../../../src/store/store.js';
import { example, exportOf, importInto } from '../../support/datasets.js';
import { tempDatabase } from '../../support/harness.js';

/**
 * The same data gives the same bytes on both engines (issue 11): exports, every page of every
 * listing, the answers of the same bulk upserts. Names hold what JSON escapes (quotes,
 * backslashes, control characters, line separators, characters outside the BMP), so that
 * SQLite's `json_object` and the shared JS rendering of the PostgreSQL engine are compared.
 */
const ODD = 'Zoë "Q" \\ \u0001\u001f\u007f \u2028 😀 <b>&amp;';

function trickyDataset() {
  const dataset = example();
  const [ada, grace] = dataset.users;
  ada.name = ODD;
  grace.email = 'Grace.HOPPER@example.com';
  for (const record of dataset.reporting) {
    if (record.user.id === ada.id) record.user.name = ada.name;
    if (record.user.id === grace.id) record.user.email = grace.email;
  }
  for (const item of dataset.group_attributions) item.group = `${item.group} ${ODD}`;
  dataset.tables[0].name = ODD;
  return dataset;
}

async function bothEngines(t: Parameters<typeof tempDatabase>[0]) {
  const [sqlite, postgres] = await Promise.all([tempDatabase(t, 'sqlite'), tempDatabase(t, 'postgres')]);
  return [sqlite.store, postgres.store] as const;
}

async function principalOf(store: Store, tenant: string): Promise<Principal> {
  return (await store.authenticate((await store.createKey(tenant)).key))!;
}

/** Every page of `source` from offset 0 with `limit`, following cursors, and the total. */
async function walk(store: Store, principal: Principal, source: Source, limit: number): Promise<string[]> {
  const pages: string[] = [String((await store.total(principal, source))?.count)];
  let offset = 0n;
  let cursor: string | undefined;
  for (;;) {
    const page = await store.page(principal, source, { offset, limit, cursor });
    if (typeof page !== 'object') assert.fail(`${source.kind}: ${page}`);
    pages.push(`${page.count}:${page.more}:${page.json.toString('utf8')}`);
    if (!page.more) return pages;
    offset += BigInt(page.count);
    cursor = page.cursor;
  }
}

const SOURCES: Source[] = [
  { kind: 'reporting' },
  { kind: 'tableRecords', table: 'deals' },
  { kind: 'tableRecords', table: 'nope' },
  { kind: 'groupAttributions' },
  { kind: 'groupAttributions', user: 'GRACE.hopper@EXAMPLE.com' },
  { kind: 'groupAttributions', dimension: 'region' },
  { kind: 'managerAttributions' },
  { kind: 'managerAttributions', user: 'alan.turing@example.com' },
];

async function assertSamePages(stores: readonly Store[], tenant: string): Promise<void> {
  const [sqlite, postgres] = await Promise.all(stores.map((store) => principalOf(store, tenant)));
  for (const source of SOURCES) {
    for (const limit of [1, 3, 2000]) {
      const sqlitePages = await walk(stores[0]!, sqlite!, source, limit).catch((error: Error) => [error.message]);
      const postgresPages = await walk(stores[1]!, postgres!, source, limit).catch((error: Error) => [error.message]);
      assert.deepEqual(postgresPages, sqlitePages, `${JSON.stringify(source)} limit=${limit}`);
    }
  }
}

test('a dataset with odd names: the same export and the same pages on both engines, and each export imports into the other', async (t) => {
  const stores = await bothEngines(t);
  for (const store of stores) await importInto(store, 'acme', trickyDataset());
  const [fromSqlite, fromPostgres] = await Promise.all(stores.map((store) => exportOf(store, 'acme')));
  assert.equal(fromPostgres, fromSqlite);
  await assertSamePages(stores, 'acme');
  await importInto(stores[0], 'crossed', fromPostgres!);
  await importInto(stores[1], 'crossed', fromSqlite!);
  const crossed = await Promise.all(stores.map((store) => exportOf(store, 'crossed')));
  assert.equal(crossed[0], fromSqlite);
  assert.equal(crossed[1], fromSqlite);
});

test('a seeded tenant, then the same bulk upserts on both: the same answers, exports and pages', async (t) => {
  const stores = await bothEngines(t);
  const dataset = generateSeed({ seed: 'parity', users: 30, records: 600 });
  for (const store of stores) {
    await store.loadTenant('acme', {}, async (writer) => {
      const elements = new ElementWriter(writer);
      for (const element of seedElements(dataset)) await elements.write(element);
      await elements.finish();
    });
  }
  const emails = dataset.users.map((user) => user.email);
  const month = (text: string) => parseMonth(text)!;
  const requests = [
    [{ kind: 'group', user: emails[1]!.toUpperCase(), dimension: 'region', group: `New ${ODD}`, start: month('2024-02'), end: month('2025-06') }],
    [
      { kind: 'group', user: emails[2]!, dimension: 'segment', group: 'SMB', start: month('2023-01'), end: null },
      { kind: 'manager', user: emails[3]!, manager: emails[4]!, start: null, end: month('2025-01') },
    ],
    [{ kind: 'manager', user: emails[4]!, manager: emails[3]!, start: month('2024-01'), end: null }],
    [{ kind: 'group', user: 'nobody@example.com', dimension: 'nope', group: 'x', start: month('2024-01'), end: null }],
  ] as const;
  for (const items of requests) {
    const answers = await Promise.all(stores.map(async (store) => store.bulkUpsert(await principalOf(store, 'acme'), items)));
    // What was written or broken; the time each engine waited for its lock is its own, and so is
    // the consistency token of a write (PostgreSQL's log position; SQLite has none).
    const [sqlite, postgres] = answers.map(({ lockWaitMs, ...outcome }, i) => {
      assert.ok(lockWaitMs! >= 0);
      const { consistency, ...rest } = outcome as typeof outcome & { consistency?: string };
      if ('written' in outcome) assert.equal(consistency === undefined, i === 0, 'a token from PostgreSQL only');
      return rest;
    });
    assert.deepEqual(postgres, sqlite, JSON.stringify(items));
  }
  const exports = await Promise.all(stores.map((store) => exportOf(store, 'acme')));
  assert.equal(exports[1], exports[0]);
  await assertSamePages(stores, 'acme');
});
