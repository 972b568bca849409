import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DatasetError, TenantWriter } from '../../src/store/tenantWriter.js';
import { ensureTenant } from '../../src/store/tenants.js';
import { buildFixture, fixtureLine, fixtureUser } from '../support/fixture.js';
import { tempDatabase } from '../support/harness.js';

describe('TenantWriter', () => {
  const collisions: [string, { metrics: string[]; dimensions: string[] }][] = [
    ['a metric named like a standard field', { metrics: ['payment'], dimensions: [] }],
    ['a dimension named like a standard field', { metrics: [], dimensions: ['plan'] }],
    ['a metric and a dimension with one key', { metrics: ['arr'], dimensions: ['arr'] }],
    ['a key ending in _currency', { metrics: ['arr_currency'], dimensions: [] }],
  ];
  for (const [name, { metrics, dimensions }] of collisions) {
    test(`refuses ${name} (D3)`, (t) => {
      const { db } = tempDatabase(t);
      const tenant = ensureTenant(db, 'acme');
      assert.throws(() => new TenantWriter(db, tenant.id).defineMetricsAndDimensions(metrics, dimensions), DatasetError);
    });
  }

  test('positions are dense and follow appends across writers', (t) => {
    const { db } = tempDatabase(t);
    const fixture = buildFixture(db, { tenant: 'acme', records: 10 });
    const writer = new TenantWriter(db, fixture.tenantId);
    writer.appendReportingRecords([fixtureLine('acme', 10, fixture.users), fixtureLine('acme', 11, fixture.users)]);
    writer.finish();
    const positions = db.prepare('SELECT pos, id FROM reporting_records WHERE tenant_id = ? ORDER BY pos').raw().all(fixture.tenantId);
    assert.deepEqual(positions, Array.from({ length: 12 }, (_, i) => [i, `acme-r${i}`]));
  });

  test('every (user, month) of a record has its dimension fields', (t) => {
    const { db } = tempDatabase(t);
    buildFixture(db, { tenant: 'acme', records: 40 });
    const missing = db
      .prepare('SELECT count(*) FROM reporting_records r LEFT JOIN dimension_values d USING (user_pk, month) WHERE d.fragment IS NULL')
      .pluck()
      .get();
    assert.equal(missing, 0);
  });

  test('a changed user is rewritten inside the stored records', (t) => {
    const { db } = tempDatabase(t);
    const fixture = buildFixture(db, { tenant: 'acme', records: 6 });
    new TenantWriter(db, fixture.tenantId).upsertUsers([{ ...fixtureUser('acme', 1), name: 'Renamed "One"' }]);
    const bodies = db.prepare('SELECT body FROM reporting_records WHERE id IN (?, ?)').pluck().all('acme-r1', 'acme-r4') as string[];
    for (const body of bodies) assert.equal(JSON.parse(`${body}}`).user.name, 'Renamed "One"');
  });

  test('an e-mail of another user is refused, whatever its case', (t) => {
    const { db } = tempDatabase(t);
    const fixture = buildFixture(db, { tenant: 'acme' });
    const writer = new TenantWriter(db, fixture.tenantId);
    assert.throws(() => writer.upsertUsers([{ ...fixtureUser('acme', 7), email: 'USER1@acme.example' }]), DatasetError);
  });
});
