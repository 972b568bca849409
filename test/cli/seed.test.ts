import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { emptyDatabaseFile } from '../support/fixture.js';
import { runCli, temporaryDirectory } from './cliProcess.js';

/** Everything a tenant's seed wrote, in a stable order, with internal keys replaced by ids. */
function tenantContents(path: string, tenant: string) {
  const db = new Database(path, { readonly: true });
  try {
    const tenantId = db.prepare('SELECT id FROM tenants WHERE name = ?').pluck().get(tenant);
    const all = (sql: string) => db.prepare(sql).raw().all(tenantId) as unknown[][];
    return {
      users: all('SELECT id, email, json FROM users WHERE tenant_id = ? ORDER BY id'),
      metrics: all('SELECT key, position FROM metrics WHERE tenant_id = ? ORDER BY position'),
      dimensions: all('SELECT key, position FROM dimensions WHERE tenant_id = ? ORDER BY position'),
      records: all(
        `SELECT r.pos, r.id, u.id, r.month, r.body || v.fragment FROM reporting_records r
         JOIN users u ON u.pk = r.user_pk JOIN dimension_values v ON v.user_pk = r.user_pk AND v.month = r.month
         WHERE r.tenant_id = ? ORDER BY r.pos`,
      ),
      groups: all(
        `SELECT u.id, d.key, g.name, a.start_month, a.end_month FROM group_attributions a
         JOIN users u ON u.pk = a.user_pk JOIN dimensions d ON d.pk = a.dimension_pk JOIN groups g ON g.pk = a.group_pk
         WHERE u.tenant_id = ? ORDER BY u.id, d.key, a.start_month`,
      ),
      managers: all(
        `SELECT u.id, m.id, a.start_month, a.end_month FROM manager_attributions a
         JOIN users u ON u.pk = a.user_pk JOIN users m ON m.pk = a.manager_pk
         WHERE u.tenant_id = ? ORDER BY u.id, a.start_month`,
      ),
      tables: all('SELECT key, name, fields FROM data_tables WHERE tenant_id = ? ORDER BY key'),
      tableRecords: all(
        `SELECT t.key, r.pos, r.id, r.body FROM table_records r JOIN data_tables t ON t.pk = r.table_pk
         WHERE t.tenant_id = ? ORDER BY t.key, r.pos`,
      ),
    };
  } finally {
    db.close();
  }
}

async function seed(path: string, tenant: string, ...more: string[]) {
  const result = await runCli(['seed', '--db', path, '--tenant', tenant, ...more]);
  assert.equal(result.code, 0, result.stderr);
  return result;
}

describe('compdata seed', { concurrency: true }, () => {
  test('the same seed writes the same data byte for byte; another seed other data', async (t) => {
    const directory = temporaryDirectory(t);
    const [first, second, other] = ['first.db', 'second.db', 'other.db'].map((name) => join(directory, name));
    const size = ['--users', '40', '--records', '3000'];
    await Promise.all([
      seed(first!, 'acme', ...size, '--seed', 'alpha'),
      seed(second!, 'acme', ...size, '--seed', 'alpha'),
      seed(other!, 'acme', ...size, '--seed', 'beta'),
    ]);
    const expected = tenantContents(first!, 'acme');
    assert.deepEqual(tenantContents(second!, 'acme'), expected);
    const different = tenantContents(other!, 'acme');
    assert.notDeepEqual(different.users, expected.users);
    assert.notDeepEqual(
      different.records.map((row) => row[4]),
      expected.records.map((row) => row[4]),
    );
    assert.notDeepEqual(different.tableRecords, expected.tableRecords);
  });

  test('writes the asked numbers of users and records, the deals table, and one summary line', async (t) => {
    const path = join(temporaryDirectory(t), 'counts.db');
    const cases: [string, { users: number; records: number; deals: number }][] = [
      ['defaults below the deals floor', { users: 7, records: 250, deals: 100 }],
      ['a fifth of the records as deals', { users: 60, records: 4000, deals: 800 }],
      ['no records at all', { users: 1, records: 0, deals: 100 }],
    ];
    for (const [name, { users, records, deals }] of cases) {
      const result = await seed(path, name, '--users', String(users), '--records', String(records));
      assert.match(result.stdout, /^[^\n]+\n$/, name);
      assert.match(result.stdout, new RegExp(`${users} users, ${records} reporting records, ${deals} deals records`));
      const contents = tenantContents(path, name);
      assert.equal(contents.users.length, users, name);
      assert.equal(contents.records.length, records, name);
      assert.equal(contents.tableRecords.length, deals, name);
      assert.deepEqual(contents.tables.map(([key]) => key), ['deals']);
    }
  });

  test('the seeded bodies are the JSON the interface describes', async (t) => {
    const path = join(temporaryDirectory(t), 'shape.db');
    await seed(path, 'acme', '--records', '500');
    const contents = tenantContents(path, 'acme');
    const record = JSON.parse(contents.records[0]![4] as string);
    for (const field of ['id', 'date', 'plan', 'user', 'payment', 'payment_currency', 'new_arr', 'services_revenue']) {
      assert.ok(field in record, field);
    }
    assert.ok(Array.isArray(record.region) && Array.isArray(record.segment));
    const deal = JSON.parse(contents.tableRecords[0]![3] as string);
    assert.deepEqual(Object.keys(deal), ['id', 'name', 'owner_id', 'close_date', 'product', 'amount', 'amount_currency', 'stage']);
    assert.match(deal.close_date, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/);
  });

  test('a tenant that already has data is refused with exit 1 and left as it was', async (t) => {
    const path = join(temporaryDirectory(t), 'twice.db');
    await seed(path, 'acme', '--records', '300');
    const before = tenantContents(path, 'acme');
    const again = await runCli(['seed', '--db', path, '--tenant', 'acme', '--records', '300', '--seed', 'other']);
    assert.equal(again.code, 1);
    assert.equal(again.stdout, '');
    assert.match(again.stderr, /^error: tenant "acme" already has data[^\n]*\n$/);
    assert.deepEqual(tenantContents(path, 'acme'), before);
    await seed(path, 'globex', '--records', '300');
  });

  test('a tenant that only has a key is seeded', async (t) => {
    const path = join(temporaryDirectory(t), 'keyed.db');
    await emptyDatabaseFile(path); // keys go into a database that seed or import made
    const created = await runCli(['keys', 'create', '--db', path, '--tenant', 'acme']);
    assert.equal(created.code, 0, created.stderr);
    await seed(path, 'acme', '--records', '300');
    assert.equal(tenantContents(path, 'acme').records.length, 300);
  });
});
