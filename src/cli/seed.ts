import { SingleBar } from 'cli-progress';
import { Command } from 'commander';
import { generateSeed, type SeedDataset, type SeedOptions } from '../dataset/generateSeed.js';
import type { Db } from '../store/db.js';
import { TenantWriter } from '../store/tenantWriter.js';
import { ensureTenant, tenantHasData, type Tenant } from '../store/tenants.js';
import { integerIn, parseTenantName, parseText } from './arguments.js';
import { withDatabase } from './database.js';
import { CommandFailure } from './errors.js';

/** Records handed to the writer at a time: large enough to amortise, small enough to hold. */
const BATCH_SIZE = 5_000;

interface SeedCommandOptions extends SeedOptions {
  db: string;
  tenant: string;
}

export function seedCommand(): Command {
  return new Command('seed')
    .description('fill a tenant with generated, realistic demo data')
    .requiredOption('--db <path>', 'SQLite database file (created when missing)', parseText)
    .requiredOption('--tenant <name>', 'tenant to fill (created when missing)', parseTenantName)
    .option('--users <n>', 'number of users', integerIn(1, 100_000), 200)
    .option('--records <n>', 'number of statement reporting records', integerIn(0, 100_000_000), 10_000)
    .option('--seed <text>', 'seed of the generator: the same seed gives the same data', parseText, 'compdata')
    .addHelpText(
      'after',
      `
Writes, in one transaction (all or nothing):
  - metrics new_arr and services_revenue, dimensions region and segment;
  - the users, their region and segment attributions and their managers (36 months from
    2023-04 to 2026-03; some users change group or manager mid-period);
  - the statement reporting records, spread over users, plans and months;
  - the data table "deals" with max(100, records / 5) records.
A tenant that already has users or data tables is refused (exit 1): seeding never mixes two
datasets. Seed another tenant, or another database file.
A progress bar is shown when stdout is a terminal; a one-line summary is always printed.`,
    )
    .action((options: SeedCommandOptions) => {
      const dataset = generateSeed(options);
      const started = performance.now();
      withDatabase(options.db, false, (db) =>
        db.transaction(() => writeDataset(db, ensureTenant(db, options.tenant), dataset)).immediate(),
      );
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      process.stdout.write(
        `seeded tenant ${options.tenant} in ${options.db}: ${dataset.users.length} users, ` +
          `${dataset.reportingLineCount} reporting records, ` +
          `${dataset.tableRecordCount} ${dataset.table.key} records, ` +
          `${dataset.groupAttributions.length} group and ${dataset.managerAttributions.length} manager attributions ` +
          `in ${seconds}s\n`,
      );
    });
}

/** Writes the whole dataset for `tenant`; the caller holds the transaction. */
function writeDataset(db: Db, tenant: Tenant, dataset: SeedDataset): void {
  if (tenantHasData(db, tenant)) {
    throw new CommandFailure(`tenant ${JSON.stringify(tenant.name)} already has data; seed another tenant or database`);
  }
  const writer = new TenantWriter(db, tenant.id);
  writer.defineMetricsAndDimensions(dataset.metrics, dataset.dimensions);
  writer.upsertUsers(dataset.users);
  writer.addGroupAttributions(dataset.groupAttributions);
  writer.addManagerAttributions(dataset.managerAttributions);
  writer.createDataTable(dataset.table.key, dataset.table.name, dataset.table.fields);
  const progress = progressBar(dataset.reportingLineCount + dataset.tableRecordCount);
  try {
    for (const lines of inBatches(dataset.reportingLines(), BATCH_SIZE)) {
      writer.appendReportingRecords(lines);
      progress?.increment(lines.length);
    }
    for (const records of inBatches(dataset.tableRecords(), BATCH_SIZE)) {
      writer.appendTableRecords(dataset.table.key, records);
      progress?.increment(records.length);
    }
    writer.finish();
  } finally {
    progress?.stop();
  }
}


/** A progress bar on stdout when it is a terminal, else none. */
function progressBar(total: number): SingleBar | undefined {
  if (!process.stdout.isTTY) return undefined;
  const bar = new SingleBar({
    stream: process.stdout,
    format: 'seeding [{bar}] {percentage}% | {value}/{total} records | {duration}s',
    clearOnComplete: true,
    // The load is one synchronous transaction: Ctrl-C ends the process at once (nothing is
    // written), with no chance to show a hidden cursor again. So it is never hidden.
    hideCursor: false,
  });
  bar.start(total, 0);
  return bar;
}

/** The items of `items` in arrays of `size` (the last one shorter). */
function* inBatches<T>(items: Iterable<T>, size: number): Generator<T[]> {
  let batch: T[] = [];
  for (const item of items) {
    batch.push(item);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
