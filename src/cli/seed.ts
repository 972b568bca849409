import { Command } from 'commander';
import type { SeedDataset, SeedOptions } from '../dataset/generateSeed.js';
import { TenantNotEmpty } from '../store/vocabulary/storeErrors.js';
import type { TenantWriter } from '../store/vocabulary/tenantWriter.js';
import { integerIn, parseTenantName, parseText } from './arguments.js';
import { DB_HELP, withStore } from './database.js';
import { CommandFailure } from './errors.js';
import { progressBar } from './progress.js';

/** Elements between two updates of the progress bar. */
const PROGRESS_EVERY = 5_000;

interface SeedCommandOptions extends SeedOptions {
  db: string;
  tenant: string;
}

export function seedCommand(): Command {
  return new Command('seed')
    .description('fill a tenant with generated, realistic demo data')
    .requiredOption('--db <path>', `${DB_HELP} (created when missing)`, parseText)
    .requiredOption('--tenant <name>', 'tenant to fill (created when missing)', parseTenantName)
    .option('--users <n>', 'number of users', integerIn(1, 100_000), 200)
    .option('--records <n>', 'number of statement reporting records', integerIn(0, 100_000_000), 10_000)
    .option('--seed <text>', 'seed of the generator: the same seed gives the same data', parseText, 'compdata')
    .addHelpText(
      'after',
      `
Writes, in one transaction (all or nothing), through the checks of 'compdata import':
  - metrics new_arr and services_revenue, dimensions region and segment;
  - the users, their region and segment attributions and their managers (36 months from
    2023-04 to 2026-03; some users change group or manager mid-period);
  - the statement reporting records, spread over users, plans and months, and their
    statements' statuses (the last month draft, the one before sent_to_payroll, older paid);
  - the data table "deals" with max(100, records / 5) records.
A tenant that already has users or data tables is refused (exit 1): seeding never mixes two
datasets. Seed another tenant, or another database file.
A progress bar is shown when stdout is a terminal; a one-line summary is always printed.`,
    )
    .action(async (options: SeedCommandOptions) => {
      // Loaded by the command that needs it: every other command starts without the dataset code.
      const { generateSeed } = await import('../dataset/generateSeed.js');
      const dataset = generateSeed(options);
      const started = performance.now();
      await withStore(options.db, 'create', async (store) => {
        try {
          await store.loadTenant(options.tenant, { mustBeEmpty: true }, (writer) => writeDataset(writer, dataset));
        } catch (error) {
          if (error instanceof TenantNotEmpty) throw new CommandFailure(error.message);
          throw error;
        }
      });
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

/**
 * Writes the whole dataset through the element writer (the path of `import`); the caller holds
 * the transaction.
 */
async function writeDataset(writer: TenantWriter, dataset: SeedDataset): Promise<void> {
  const [{ ElementWriter }, { seedElements }] = await Promise.all([import('../dataset/elementWriter.js'), import('../dataset/seedElements.js')]);
  const elements = new ElementWriter(writer);
  const total =
    dataset.metrics.length + dataset.dimensions.length + dataset.users.length + dataset.groupAttributions.length +
    dataset.managerAttributions.length + dataset.reportingLineCount + 1 + dataset.tableRecordCount;
  const progress = progressBar(process.stdout, 'seeding [{bar}] {percentage}% | {value}/{total} elements | {duration}s', total);
  try {
    let written = 0;
    for (const element of seedElements(dataset)) {
      await elements.write(element);
      // Statements' statuses are not in the total: how many there are is known once the lines are.
      if (element.kind === 'statements') continue;
      written += 1;
      if (written % PROGRESS_EVERY === 0) progress?.update(written);
    }
    await elements.finish();
  } finally {
    progress?.stop();
  }
}
