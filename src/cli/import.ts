import { createReadStream, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { Command } from 'commander';
import { parseTenantName, parseText } from './arguments.js';
import type { CommandIo } from './commandIo.js';
import { DB_HELP, withStore } from './database.js';
import { CommandFailure } from './errors.js';
import { progressBar, ratePerSecond } from './progress.js';

interface ImportCommandOptions {
  db: string;
  tenant: string;
  replace?: boolean;
}

export function importCommand(io: CommandIo): Command {
  return new Command('import')
    .description("load a dataset file into a tenant, all or nothing")
    .requiredOption('--db <path>', `${DB_HELP} (created when missing)`, parseText)
    .requiredOption('--tenant <name>', 'tenant to load into (created when missing)', parseTenantName)
    .option('--replace', "replace the tenant's data (its API keys stay) instead of upserting")
    .argument('<file>', 'the dataset file (JSON, see openapi/dataset.schema.json); - reads standard input')
    .addHelpText(
      'after',
      `
The file is read as a stream and each element is checked as it arrives, against
openapi/dataset.schema.json and the rules of the data model (ids given once, known users
and dimensions, no overlapping attributions, no manager cycles). Everything is written in
one transaction: on the first problem nothing is written, and one line names it with its
JSON path ($.reporting[48211].payment: must be number); the exit code is then 1.
Without --replace, users and records are upserted by id (a stored record keeps its place),
new metrics, dimensions and tables are added, and attributions override the stored ones
of their user in their months. With --replace, the tenant's data is deleted first.
A progress bar is shown on stderr when it is a terminal; a one-line summary is printed.`,
    )
    .action(async (file: string, options: ImportCommandOptions) => {
      // Loaded by the command that needs it: every other command starts without the dataset code.
      const { elementTotal, importDataset } = await import('../dataset/datasetImport.js');
      const input = openInput(file, io.stdin);
      const started = performance.now();
      const format = input.size === undefined ? '' : '[{bar}] {percentage}% | ';
      const { counts, reporting } = await withStore(options.db, 'create', async (store) => {
        const bar = progressBar(io.stderr, `importing ${format}{elements} elements | {rate} elements/s | {duration}s`, input.size ?? 0);
        try {
          return await importDataset(store, options.tenant, input.stream, {
            replace: options.replace,
            onProgress: (bytes, elements) => bar?.update(bytes, { elements, rate: ratePerSecond(elements, started) }),
          });
        } finally {
          bar?.stop();
        }
      });
      const seconds = (performance.now() - started) / 1000;
      io.stdout.write(
        `imported ${file === '-' ? 'standard input' : file} into tenant ${options.tenant} of ${options.db}: ` +
          `${counts.metrics} metrics, ${counts.dimensions} dimensions, ${counts.users} users, ` +
          `${counts.group_attributions} group and ${counts.manager_attributions} manager attributions, ` +
          `${counts.reporting} reporting records (${reporting.added} new, ${reporting.updated} updated), ` +
          `${counts.statements} statement statuses, ` +
          `${counts.tables} tables with ${counts.table_records} records, ` +
          `in ${seconds.toFixed(1)}s (${ratePerSecond(elementTotal(counts), started)} elements/s)\n`,
      );
    });
}

/** The input stream (`-`: standard input), and its size when it is a file. */
function openInput(file: string, stdin: Readable): { stream: Readable; size: number | undefined } {
  if (file === '-') return { stream: stdin, size: undefined };
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new Error('not a file');
    size = stat.size;
  } catch (error) {
    throw new CommandFailure(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  return { stream: createReadStream(file, { highWaterMark: 1 << 16 }), size };
}
