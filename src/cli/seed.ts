import { Command } from 'commander';
import type { SeedOptions } from '../dataset/generateSeed.js';
import type { SeedProgress } from '../dataset/seedTenant.js';
import { TenantNotEmpty } from '../store/vocabulary/storeErrors.js';
import { integerIn, parseTenantName, parseText } from './arguments.js';
import type { CommandIo, OutputStream } from './commandIo.js';
import { DB_HELP, withStore } from './database.js';
import { CommandFailure } from './errors.js';
import { progressBar } from './progress.js';

interface SeedCommandOptions extends SeedOptions {
  db: string;
  tenant: string;
}

export function seedCommand(io: CommandIo): Command {
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
      const [{ generateSeed }, { seedTenant }] = await Promise.all([import('../dataset/generateSeed.js'), import('../dataset/seedTenant.js')]);
      const dataset = generateSeed(options);
      const started = performance.now();
      await withStore(options.db, 'create', async (store) => {
        try {
          await seedTenant(store, options.tenant, dataset, terminalProgress(io.stdout));
        } catch (error) {
          if (error instanceof TenantNotEmpty) throw new CommandFailure(error.message);
          throw error;
        }
      });
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      io.stdout.write(
        `seeded tenant ${options.tenant} in ${options.db}: ${dataset.users.length} users, ` +
          `${dataset.reportingLineCount} reporting records, ` +
          `${dataset.tableRecordCount} ${dataset.table.key} records, ` +
          `${dataset.groupAttributions.length} group and ${dataset.managerAttributions.length} manager attributions ` +
          `in ${seconds}s\n`,
      );
    });
}

/** A progress bar on `stdout` when it is a terminal. */
function terminalProgress(stdout: OutputStream): SeedProgress {
  let bar: ReturnType<typeof progressBar>;
  return {
    start: (total) => void (bar = progressBar(stdout, 'seeding [{bar}] {percentage}% | {value}/{total} elements | {duration}s', total)),
    update: (written) => bar?.update(written),
    stop: () => bar?.stop(),
  };
}
