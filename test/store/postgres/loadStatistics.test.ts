import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { example, importInto } from '../../support/datasets.js';
import { tempDatabase } from '../../support/harness.js';

/**
 * A large load keeps the planner's statistics in step with it (src/store/postgres/loadStatistics.ts).
 * The tables start analysed while the tenant holds a handful of rows, with autovacuum off, so
 * that only the load itself can tell the planner how large the tenant has grown.
 */
const RECORDS = 6_000;
const GROWN = ['users', 'reporting_records', 'dimension_values', 'table_records', 'group_attributions', 'manager_attributions'];

/** The example dataset with `RECORDS` more records in its first data table. */
function grownDataset(): any {
  const dataset = example();
  const [table] = dataset.tables;
  const model = table.records[0];
  for (let i = 0; i < RECORDS; i += 1) table.records.push({ ...model, id: `grown-${i}`, name: `Deal ${i}` });
  return dataset;
}

async function analysedSmall(t: Parameters<typeof tempDatabase>[0]) {
  const database = await tempDatabase(t, 'postgres');
  await importInto(database.store, 'acme', example());
  for (const table of GROWN) {
    await database.sql.exec(`ALTER TABLE ${table} SET (autovacuum_enabled = off)`);
    await database.sql.exec(`ANALYZE ${table}`);
  }
  return database;
}

test('a load of thousands of records into a table analysed small leaves its lookups by id probing the unique index', async (t) => {
  const { store, sql } = await analysedSmall(t);
  const tenantId = Number(await sql.value(`SELECT id FROM tenants WHERE name = 'acme'`));
  const tablePk = Number(await sql.value(`SELECT pk FROM data_tables WHERE tenant_id = ? AND key = 'deals'`, tenantId));
  const explain = async () =>
    JSON.stringify(
      await sql.value(
        `EXPLAIN (FORMAT JSON) SELECT pos FROM table_records WHERE tenant_id = ${tenantId} AND table_pk = ${tablePk} AND id = ANY (ARRAY['grown-1', 'grown-2', 'grown-3'])`,
      ),
    );
  const filtered = /"Filter":"\(id = ANY/;

  await importInto(store, 'acme', grownDataset());

  const counted = Number(await sql.value(`SELECT reltuples FROM pg_class WHERE relname = 'table_records'`));
  assert.ok(counted >= RECORDS / 2, `the statistics count ${counted} table records after a load of ${RECORDS}`); // analysed as the load doubles
  const plan = await explain();
  assert.doesNotMatch(plan, filtered, `a lookup by id reads the table's rows with the ids as a filter: ${plan}`);
  assert.match(plan, /"Index Cond":"\(\(tenant_id = \d+\) AND \(table_pk = \d+\) AND \(id = ANY/, plan);
});

test('a load goes on, without analysing, while another transaction holds a table ANALYZE lock', { timeout: 60_000 }, async (t) => {
  const { store, database } = await analysedSmall(t);
  const holder = new pg.Client({ connectionString: database });
  holder.on('error', () => {}); // the database is dropped at the end of the test
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query('ANALYZE table_records');
  await holder.query(`SET lock_timeout = '1s'`);
  const before = Number((await holder.query(`SELECT reltuples FROM pg_class WHERE relname = 'table_records'`)).rows[0].reltuples);

  const tableRecords = async () => Number((await holder.query(`SELECT count(*) FROM table_records WHERE id LIKE 'grown-%'`)).rows[0].count);

  await importInto(store, 'acme', grownDataset());

  assert.equal(await tableRecords(), RECORDS);
  await holder.query('ROLLBACK');
  const after = Number((await holder.query(`SELECT reltuples FROM pg_class WHERE relname = 'table_records'`)).rows[0].reltuples);
  await holder.end();
  assert.equal(after, before, 'the load analysed the table another transaction held');
});
