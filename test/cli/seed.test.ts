import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { exportOf } from '../support/datasets.js';
import { withOtherStore } from '../support/harness.js';
import { databaseFor } from '../support/testDatabases.js';
import { runCli, runInProcess } from './cliProcess.js';

/**
 * Everything a tenant's seed wrote, as `export` writes it: every section in the API's order,
 * records by position, with their dimension fields (from any engine).
 */
async function tenantContents(database: string, tenant: string): Promise<{ text: string; dataset: any }> {
  const text = (await withOtherStore(database, (store) => exportOf(store, tenant)))!;
  return { text, dataset: JSON.parse(text) };
}

/** Seeds in this process (what the command writes is the subject); one test runs the `compdata` binary. */
async function seed(path: string, tenant: string, ...more: string[]) {
  return seedBy(runInProcess, path, tenant, ...more);
}

async function seedBy(run: typeof runInProcess, path: string, tenant: string, ...more: string[]) {
  const result = await run(['seed', '--db', path, '--tenant', tenant, ...more]);
  assert.equal(result.code, 0, result.stderr);
  return result;
}

describe('compdata seed', { concurrency: true }, () => {
  test('the same seed writes the same data byte for byte; another seed other data', async (t) => {
    const [first, second, other] = await Promise.all([databaseFor(t), databaseFor(t), databaseFor(t)]);
    const size = ['--users', '40', '--records', '3000'];
    await Promise.all([
      seed(first, 'acme', ...size, '--seed', 'alpha'),
      seed(second, 'acme', ...size, '--seed', 'alpha'),
      seed(other, 'acme', ...size, '--seed', 'beta'),
    ]);
    const expected = await tenantContents(first, 'acme');
    assert.equal((await tenantContents(second, 'acme')).text, expected.text);
    const different = (await tenantContents(other, 'acme')).dataset;
    assert.notDeepEqual(different.users, expected.dataset.users);
    assert.notDeepEqual(different.reporting, expected.dataset.reporting);
    assert.notDeepEqual(different.tables[0].records, expected.dataset.tables[0].records);
  });

  test('writes the asked numbers of users and records, the deals table, and one summary line', async (t) => {
    const path = await databaseFor(t);
    const cases: [string, { users: number; records: number; deals: number }][] = [
      ['defaults below the deals floor', { users: 7, records: 250, deals: 100 }],
      ['a fifth of the records as deals', { users: 60, records: 4000, deals: 800 }],
      ['no records at all', { users: 1, records: 0, deals: 100 }],
    ];
    for (const [name, { users, records, deals }] of cases) {
      const result = await seed(path, name, '--users', String(users), '--records', String(records));
      assert.match(result.stdout, /^[^\n]+\n$/, name);
      assert.match(result.stdout, new RegExp(`${users} users, ${records} reporting records, ${deals} deals records`));
      const { dataset } = await tenantContents(path, name);
      assert.equal(dataset.users.length, users, name);
      assert.equal(dataset.reporting.length, records, name);
      assert.deepEqual(dataset.tables.map((table: { key: string }) => table.key), ['deals']);
      assert.equal(dataset.tables[0].records.length, deals, name);
    }
  });

  test('the seeded bodies are the JSON the interface describes', async (t) => {
    const path = await databaseFor(t);
    const result = await seedBy(runCli, path, 'acme', '--records', '500');
    assert.match(result.stdout, /^seeded tenant acme in .*: 200 users, 500 reporting records, 100 deals records, [^\n]* in [\d.]+s\n$/);
    const { dataset } = await tenantContents(path, 'acme');
    const record = dataset.reporting[0];
    for (const field of ['id', 'date', 'plan', 'user', 'payment', 'payment_currency', 'new_arr', 'services_revenue']) {
      assert.ok(field in record, field);
    }
    assert.ok(Array.isArray(record.region) && Array.isArray(record.segment));
    const deal = dataset.tables[0].records[0];
    assert.deepEqual(Object.keys(deal), ['id', 'name', 'owner_id', 'close_date', 'product', 'amount', 'amount_currency', 'stage']);
    assert.match(deal.close_date, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/);
  });

  test('a tenant that already has data is refused with exit 1 and left as it was', async (t) => {
    const path = await databaseFor(t);
    await seed(path, 'acme', '--records', '300');
    const before = (await tenantContents(path, 'acme')).text;
    const again = await runInProcess(['seed', '--db', path, '--tenant', 'acme', '--records', '300', '--seed', 'other']);
    assert.equal(again.code, 1);
    assert.equal(again.stdout, '');
    assert.match(again.stderr, /^error: tenant "acme" already has data[^\n]*\n$/);
    assert.equal((await tenantContents(path, 'acme')).text, before);
    await seed(path, 'globex', '--records', '300');
  });

  test('a tenant that only has a key is seeded', async (t) => {
    const path = await databaseFor(t);
    const created = await runInProcess(['keys', 'create', '--db', path, '--tenant', 'acme']);
    assert.equal(created.code, 0, created.stderr);
    await seed(path, 'acme', '--records', '300');
    assert.equal((await tenantContents(path, 'acme')).dataset.reporting.length, 300);
  });
});
