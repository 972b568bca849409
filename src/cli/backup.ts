import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { BackupUnsupported } from '../store/vocabulary/storeErrors.js';
import { parseText } from './arguments.js';
import type { CommandIo } from './commandIo.js';
import { DB_HELP, withStore } from './database.js';
import { UsageFailure } from './errors.js';

export function backupCommand(io: CommandIo): Command {
  return new Command('backup')
    .description('copy a database into a new file, consistent while servers read and write')
    .requiredOption('--db <path>', `${DB_HELP} (must exist)`, parseText)
    .argument('<out>', 'the new SQLite file (must not exist); `compdata serve --db OUT` serves it', parseText)
    .addHelpText(
      'after',
      `
The copy is the database as it was at one moment (SQLite's online backup): servers and
commands may go on writing meanwhile, and every write committed before that moment is in it.
OUT appears only once the copy is complete; a copy that fails leaves nothing there.
A PostgreSQL database is copied with pg_dump instead (exit 2, saying how).`,
    )
    .action(async (out: string, options: { db: string }) => {
      if (existsSync(out)) throw new UsageFailure(`${out} already exists: the backup never replaces a file`);
      const started = performance.now();
      await withStore(options.db, 'mustExist', async (store) => {
        try {
          await store.backup(out);
        } catch (error) {
          if (error instanceof BackupUnsupported) throw new UsageFailure(error.message);
          throw error;
        }
      });
      io.stdout.write(`backed up ${options.db} to ${out} in ${((performance.now() - started) / 1000).toFixed(1)}s\n`);
    });
}
