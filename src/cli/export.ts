import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { finished } from 'node:stream/promises';
import { Command } from 'commander';
import { parseTenantName, parseText } from './arguments.js';
import type { CommandIo } from './commandIo.js';
import { DB_HELP, withStore } from './database.js';
import { CommandFailure } from './errors.js';
import { progressBar, ratePerSecond } from './progress.js';

interface ExportOptions {
  db: string;
  tenant: string;
}

export function exportCommand(io: CommandIo): Command {
  return new Command('export')
    .description("write a tenant's data as a dataset file")
    .requiredOption('--db <path>', DB_HELP, parseText)
    .requiredOption('--tenant <name>', 'tenant to export', parseTenantName)
    .argument('[file]', 'file to write (replaced once complete); absent or -: standard output')
    .addHelpText(
      'after',
      `
Writes the dataset format of openapi/dataset.schema.json, one element per line, in the
API's order, from one snapshot of the database (writers may go on meanwhile). What it writes
can be loaded with 'compdata import'; the same data always gives the same bytes.
A progress bar is shown on stderr when it is a terminal; with a FILE, a one-line summary.`,
    )
    .action(async (file: string | undefined, options: ExportOptions) => {
      const { exportTenant } = await import('../dataset/datasetExport.js');
      const toFile = file !== undefined && file !== '-';
      const started = performance.now();
      let count = 0;
      await withStore(options.db, 'mustExist', async (store) => {
        const partial = `${file}.partial`;
        const out = toFile ? createWriteStream(partial) : io.stdout;
        const bar = progressBar(io.stderr, 'exporting {value} elements | {rate} elements/s | {duration}s', 0);
        try {
          const found = await exportTenant(store, options.tenant, out, (written) => {
            count += written;
            bar?.update(count, { rate: ratePerSecond(count, started) });
          });
          if (!found) throw new CommandFailure(`no tenant ${JSON.stringify(options.tenant)} in ${options.db}`);
          if (toFile) {
            await finished(out.end());
            renameSync(partial, file);
          }
        } catch (error) {
          if (toFile) {
            // The file may still be opening: it is closed (and so there) before it is removed.
            await finished(out.destroy()).catch(() => {});
            rmSync(partial, { force: true });
          }
          throw error;
        } finally {
          bar?.stop();
        }
      });
      if (toFile) {
        const seconds = (performance.now() - started) / 1000;
        io.stdout.write(
          `exported tenant ${options.tenant} of ${options.db} to ${file}: ${count} elements ` +
            `in ${seconds.toFixed(1)}s (${ratePerSecond(count, started)} elements/s)\n`,
        );
      }
    });
}
