import assert from 'node:assert/strict';
import { describe,test } from 'node:test';
import { DatasetError } from '../../../src/domain/datasetError.js';
import type { TenantWriter } from '../../../src/store/vocabulary/tenantWriter.js';
import { EXAMPLE_BYTES,exportOf,importInto } from '../../support/datasets.js';
import { buildFixture,fixtureLine,fixtureUser } from '../../support/fixture.js';
import { tempDatabase,type TempDatabase } from '../../support/harness.js';
import { RECORD_BODIES } from '../../support/recordBodies.js';

/**
 * Loading data into a tenant (`Store.loadTenant` and its writer), on the engine of the run:
 * the rules of ../../src/store/loading/, through each engine's steps. The tables are read with
 * the test's own SQL, written once for both engines.
 */
const load = <T>(database: TempDatabase, work: (writer: TenantWriter) => Promise<T>) => database.store.loadTenant('acme', {}, work);

const recordsWithoutFields = (database: TempDatabase) =>
  database.sql.value(
    `SELECT count(*) FROM reporting_records r
     WHERE NOT EXISTS (SELECT 1 FROM dimension_values d WHERE d.user_pk = r.user_pk AND d.month = r.month)`,
  );

describe('loading a tenant', () => {
  const collisions: [string, { metrics: string[]; dimensions: string[] }][] = [
    ['a metric named like a standard field', { metrics: ['payment'], dimensions: [] }],
    ['a dimension named like a standard field', { metrics: [], dimensions: ['plan'] }],
    ['a metric and a dimension with one key', { metrics: ['arr'], dimensions: ['arr'] }],
    ['a key ending in _currency', { metrics: ['arr_currency'], dimensions: [] }],
  ];
  for (const [name, { metrics, dimensions }] of collisions) {
    test(`refuses ${name}, and nothing of the load stays`, async (t) => {
      const database = await tempDatabase(t);
      await assert.rejects(load(database, (writer) => writer.defineMetricsAndDimensions(metrics, dimensions)), DatasetError);
      assert.equal(await database.store.findTenant('acme'), undefined, 'the tenant made by the load is rolled back with it');
    });
  }

  test('positions are dense and follow appends across loads', async (t) => {
    const database = await tempDatabase(t);
    const fixture = await buildFixture(database.store, { tenant: 'acme', records: 10 });
    await load(database, async (writer) => {
      await writer.upsertReportingRecords([fixtureLine('acme', 10, fixture.users), fixtureLine('acme', 11, fixture.users)]);
      await writer.finish();
    });
    const positions = await database.sql.rows('SELECT pos, id FROM reporting_records WHERE tenant_id = ? ORDER BY pos', fixture.tenantId);
    assert.deepEqual(positions.map(([pos, id]) => [Number(pos), id]), Array.from({ length: 12 }, (_, i) => [i, `acme-r${i}`]));
    assert.equal(Number(await recordsWithoutFields(database)), 0, 'every (user, month) of a record has its dimension fields');
  });

  test('a changed user is rewritten inside the stored records', async (t) => {
    const database = await tempDatabase(t);
    await buildFixture(database.store, { tenant: 'acme', records: 6 });
    await load(database, (writer) => writer.upsertUsers([{ ...fixtureUser('acme', 1), name: 'Renamed "One"' }]));
    const bodies = await database.sql.rows(`SELECT body FROM (${RECORD_BODIES[database.engine]}) b WHERE id IN (?, ?)`, 'acme-r1', 'acme-r4');
    assert.equal(bodies.length, 2);
    for (const [body] of bodies) assert.equal(JSON.parse(`${body as string}}`).user.name, 'Renamed "One"');
  });

  test('an e-mail of another user is refused, whatever its case; one freed earlier in the batch may be taken', async (t) => {
    const database = await tempDatabase(t);
    await buildFixture(database.store, { tenant: 'acme' });
    await assert.rejects(
      load(database, (writer) => writer.upsertUsers([{ ...fixtureUser('acme', 7), email: 'USER1@acme.example' }])),
      (error: unknown) => error instanceof DatasetError && error.path === '$.users[0].email',
    );
    await load(database, (writer) =>
      writer.upsertUsers([
        { ...fixtureUser('acme', 1), email: 'moved@acme.example' },
        { ...fixtureUser('acme', 7), email: 'User1@acme.example' },
      ]),
    );
    assert.equal(await database.sql.value('SELECT id FROM users WHERE email = ?', 'User1@acme.example'), 'u7');
  });

  test('an upsert updates a stored record in place and appends a new one; an id given twice is refused at its path', async (t) => {
    const database = await tempDatabase(t);
    const fixture = await buildFixture(database.store, { tenant: 'acme', records: 5 });
    const counts = await load(database, async (writer) => {
      await writer.upsertReportingRecords([{ ...fixtureLine('acme', 2, fixture.users), payment: 7.25 }, fixtureLine('acme', 5, fixture.users)]);
      return writer.reportingCounts;
    });
    assert.deepEqual(counts, { total: 6, added: 1, updated: 1 });
    const rows = await database.sql.rows(`SELECT pos, id, body FROM (${RECORD_BODIES[database.engine]}) b WHERE tenant_id = ? ORDER BY pos`, fixture.tenantId);
    assert.deepEqual(rows.map(([pos, id]) => [Number(pos), id]), Array.from({ length: 6 }, (_, i) => [i, `acme-r${i}`]));
    assert.equal(JSON.parse(`${rows[2]![2] as string}}`).payment, 7.25);
    for (const twice of [
      [fixtureLine('acme', 2, fixture.users), fixtureLine('acme', 2, fixture.users)],
      [fixtureLine('acme', 8, fixture.users), fixtureLine('acme', 8, fixture.users)],
    ]) {
      await assert.rejects(
        load(database, (writer) => writer.upsertReportingRecords(twice, { path: '$.reporting', first: 40 })),
        (error: unknown) => error instanceof DatasetError && error.path === '$.reporting[41].id',
      );
    }
    assert.equal(Number(await database.sql.value('SELECT count(*) FROM reporting_records')), 6, 'the refused loads left nothing');
  });

  test('group attributions of a load override the stored ones of their slot, as the bulk upsert does', async (t) => {
    const database = await tempDatabase(t);
    const fixture = await buildFixture(database.store, { tenant: 'acme', records: 12 });
    // u0 holds EMEA 2026-03..2026-05 and APAC from 2026-09: LATAM 2026-04..2026-10 cuts both.
    await load(database, async (writer) => {
      await writer.addGroupAttributions([{ user_id: 'u0', dimension: 'region', group: 'LATAM', start: 2026 * 12 + 3, end: 2026 * 12 + 9 }]);
      await writer.finish();
    });
    const periods = await database.sql.rows(
      `SELECT g.name, a.start_month, a.end_month FROM group_attributions a JOIN groups g ON g.pk = a.group_pk ORDER BY a.start_month`,
    );
    const month = (m: unknown) => (m === null ? null : Number(m) - 2026 * 12 + 1);
    assert.deepEqual(periods.map(([name, start, end]) => [name, month(start), month(end)]), [
      ['EMEA', 3, 3],
      ['LATAM', 4, 10],
      ['APAC', 11, null],
    ]);
    // Record i is of month (i % 12) + 1 and of user u(i % 3): u0's records are 0, 3, 6, 9.
    const principal = (await database.store.authenticate(fixture.key))!;
    const page = await database.store.page(principal, { kind: 'reporting' }, { offset: 0n, limit: 12 });
    assert.ok(typeof page !== 'string');
    const regionOf = new Map(JSON.parse(`[${page.json.toString()}]`).map((record: { id: string; region: string[] }) => [record.id, record.region]));
    assert.deepEqual([0, 3, 6, 9].map((i) => regionOf.get(`acme-r${i}`)), [[], ['LATAM'], ['LATAM'], ['LATAM']]);
    assert.deepEqual(regionOf.get('acme-r2'), [], 'another user keeps their fields');
    assert.equal(Number(await recordsWithoutFields(database)), 0);
  });

  test('after imports and upserts the read path invariants hold', async (t) => {
    const database = await tempDatabase(t);
    await importInto(database.store, 'acme', EXAMPLE_BYTES);
    await importInto(database.store, 'acme', EXAMPLE_BYTES);
    const positions = await database.sql.rows('SELECT tenant_id, count(*), max(pos) FROM reporting_records GROUP BY tenant_id');
    for (const [, count, maxPos] of positions) assert.equal(Number(maxPos), Number(count) - 1, 'positions are dense');
    const tablePositions = await database.sql.rows('SELECT count(*), max(pos) FROM table_records GROUP BY table_pk');
    for (const [count, maxPos] of tablePositions) assert.equal(Number(maxPos), Number(count) - 1, 'table positions are dense');
    assert.equal(Number(await recordsWithoutFields(database)), 0);
    assert.deepEqual(await database.store.check(), []);
  });

  test("replacing a tenant's data with nothing keeps its keys and the other tenants' data", async (t) => {
    const database = await tempDatabase(t);
    const { store, sql } = database;
    await importInto(store, 'acme', EXAMPLE_BYTES);
    await importInto(store, 'globex', EXAMPLE_BYTES);
    const globexBefore = await exportOf(store, 'globex');
    const key = await store.createKey('acme');
    await store.loadTenant('acme', { replace: true }, (writer) => writer.finish());
    const acme = (await store.findTenant('acme'))!;
    const emptied = JSON.parse((await exportOf(store, 'acme'))!);
    for (const section of ['metrics', 'dimensions', 'users', 'group_attributions', 'manager_attributions', 'reporting', 'tables']) {
      assert.deepEqual(emptied[section], [], section);
    }
    // Kept with the tenant: in `tenants` on SQLite, in `tenant_state` on PostgreSQL (one table per node on Citus).
    const emptyFragment = database.engine === 'sqlite' ? 'SELECT empty_fragment FROM tenants WHERE id = ?' : 'SELECT empty_fragment FROM tenant_state WHERE tenant_id = ?';
    assert.equal(await sql.value(emptyFragment, acme.id), '}');
    assert.deepEqual((await store.listKeys('acme')).map((k) => [k.id, k.state]), [[key.id, 'active']]);
    assert.equal(await exportOf(store, 'globex'), globexBefore);
  });
});
