import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DatasetError } from '../../../src/domain/datasetError.js';
import { SqliteTenantWriter as TenantWriter } from '../../../src/store/sqlite/tenantWriter.js';
import { tenantStatements } from '../../../src/store/sqlite/tenants.js';
import { EXAMPLE_BYTES, exportOf, importInto } from '../../support/datasets.js';
import { buildFixture, fixtureLine, fixtureUser } from '../../support/fixture.js';
import { tempSqliteDatabase } from '../../support/harness.js';

describe('the SQLite TenantWriter', () => {
  const collisions: [string, { metrics: string[]; dimensions: string[] }][] = [
    ['a metric named like a standard field', { metrics: ['payment'], dimensions: [] }],
    ['a dimension named like a standard field', { metrics: [], dimensions: ['plan'] }],
    ['a metric and a dimension with one key', { metrics: ['arr'], dimensions: ['arr'] }],
    ['a key ending in _currency', { metrics: ['arr_currency'], dimensions: [] }],
  ];
  for (const [name, { metrics, dimensions }] of collisions) {
    test(`refuses ${name} (D3)`, async (t) => {
      const { db } = await tempSqliteDatabase(t);
      const tenant = tenantStatements(db).ensure('acme');
      await assert.rejects(new TenantWriter(db, tenant.id).defineMetricsAndDimensions(metrics, dimensions), DatasetError);
    });
  }

  test('positions are dense and follow appends across writers', async (t) => {
    const { db, store } = await tempSqliteDatabase(t);
    const fixture = await buildFixture(store, { tenant: 'acme', records: 10 });
    const writer = new TenantWriter(db, fixture.tenantId);
    await writer.upsertReportingRecords([fixtureLine('acme', 10, fixture.users), fixtureLine('acme', 11, fixture.users)]);
    await writer.finish();
    const positions = db.prepare('SELECT pos, id FROM reporting_records WHERE tenant_id = ? ORDER BY pos').raw().all(fixture.tenantId);
    assert.deepEqual(positions, Array.from({ length: 12 }, (_, i) => [i, `acme-r${i}`]));
  });

  test('every (user, month) of a record has its dimension fields', async (t) => {
    const { db, store } = await tempSqliteDatabase(t);
    await buildFixture(store, { tenant: 'acme', records: 40 });
    const missing = db
      .prepare('SELECT count(*) FROM reporting_records r LEFT JOIN dimension_values d USING (user_pk, month) WHERE d.fragment IS NULL')
      .pluck()
      .get();
    assert.equal(missing, 0);
  });

  test('a changed user is rewritten inside the stored records', async (t) => {
    const { db, store } = await tempSqliteDatabase(t);
    const fixture = await buildFixture(store, { tenant: 'acme', records: 6 });
    await new TenantWriter(db, fixture.tenantId).upsertUsers([{ ...fixtureUser('acme', 1), name: 'Renamed "One"' }]);
    const bodies = db.prepare('SELECT body FROM reporting_records WHERE id IN (?, ?)').pluck().all('acme-r1', 'acme-r4') as string[];
    for (const body of bodies) assert.equal(JSON.parse(`${body}}`).user.name, 'Renamed "One"');
  });

  test('an e-mail of another user is refused, whatever its case', async (t) => {
    const { db, store } = await tempSqliteDatabase(t);
    const fixture = await buildFixture(store, { tenant: 'acme' });
    const writer = new TenantWriter(db, fixture.tenantId);
    await assert.rejects(writer.upsertUsers([{ ...fixtureUser('acme', 7), email: 'USER1@acme.example' }]), DatasetError);
  });

  test('an upsert updates a stored record in place and appends a new one; an id given twice is refused', async (t) => {
    const { db, store } = await tempSqliteDatabase(t);
    const fixture = await buildFixture(store, { tenant: 'acme', records: 5 });
    const writer = new TenantWriter(db, fixture.tenantId);
    await writer.upsertReportingRecords([{ ...fixtureLine('acme', 2, fixture.users), payment: 7.25 }, fixtureLine('acme', 5, fixture.users)]);
    assert.deepEqual(writer.reportingCounts, { total: 6, added: 1, updated: 1 });
    const rows = db.prepare('SELECT pos, id, body FROM reporting_records WHERE tenant_id = ? ORDER BY pos').raw().all(fixture.tenantId) as [number, string, string][];
    assert.deepEqual(rows.map(([pos, id]) => [pos, id]), Array.from({ length: 6 }, (_, i) => [i, `acme-r${i}`]));
    assert.equal(JSON.parse(`${rows[2]![2]}}`).payment, 7.25);
    await assert.rejects(
      writer.upsertReportingRecords([fixtureLine('acme', 2, fixture.users)], { path: '$.reporting', first: 40 }),
      (error: unknown) => error instanceof DatasetError && error.path === '$.reporting[40].id',
    );
  });

  test('after imports and upserts the read path invariants hold', async (t) => {
    const { db, store } = await tempSqliteDatabase(t);
    await importInto(store, 'acme', EXAMPLE_BYTES);
    await importInto(store, 'acme', EXAMPLE_BYTES);
    const positions = db.prepare('SELECT tenant_id, count(*), max(pos) FROM reporting_records GROUP BY tenant_id').raw().all() as number[][];
    for (const [, count, maxPos] of positions) assert.equal(maxPos, count! - 1, 'positions are dense');
    const tablePositions = db.prepare('SELECT count(*), max(pos) FROM table_records GROUP BY table_pk').raw().all() as number[][];
    for (const [count, maxPos] of tablePositions) assert.equal(maxPos, count! - 1, 'table positions are dense');
    const missing = db.prepare('SELECT count(*) FROM reporting_records r LEFT JOIN dimension_values d USING (user_pk, month) WHERE d.fragment IS NULL').pluck().get();
    assert.equal(missing, 0);
  });

  test("replacing a tenant's data with nothing keeps its keys and the other tenants' data", async (t) => {
    const { db, store } = await tempSqliteDatabase(t);
    await importInto(store, 'acme', EXAMPLE_BYTES);
    await importInto(store, 'globex', EXAMPLE_BYTES);
    const globexBefore = await exportOf(store, 'globex');
    const key = await store.createKey('acme');
    await store.loadTenant('acme', { replace: true }, (writer) => writer.finish());
    const acme = tenantStatements(db).find('acme')!;
    const emptied = JSON.parse((await exportOf(store, 'acme'))!);
    for (const section of ['metrics', 'dimensions', 'users', 'group_attributions', 'manager_attributions', 'reporting', 'tables']) {
      assert.deepEqual(emptied[section], [], section);
    }
    assert.equal(db.prepare('SELECT empty_fragment FROM tenants WHERE id = ?').pluck().get(acme.id), '}');
    assert.deepEqual((await store.listKeys('acme')).map((k) => [k.id, k.state]), [[key.id, 'active']]);
    assert.equal(await exportOf(store, 'globex'), globexBefore);
  });
});
