import { Command } from 'commander';
import { CompactUnsupported } from '../store/vocabulary/storeErrors.js';
import { parseText } from './arguments.js';
import type { CommandIo } from './commandIo.js';
import { DB_HELP, withStore } from './database.js';
import { UsageFailure } from './errors.js';

const megabytes = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

export function compactCommand(io: CommandIo): Command {
  return new Command('compact')
    .description('give the space that deleted and rewritten data left in a SQLite file back to the file system')
    .requiredOption('--db <path>', `${DB_HELP} (must exist)`, parseText)
    .addHelpText(
      'after',
      `
SQLite keeps the pages that deleted data freed inside the file, and reuses them for new data;
an upgrade that rewrites data (the upgrade that gave the statements' v2 texts a table of their
own) can leave a large part of the file free. This rewrites the file without them (VACUUM),
which needs free disk space about the size of the file. First it writes each renamed user's
current object into the records written before the rename, which then read without the
exchange (they read the same). Servers may stay up: reads go on, and
writes wait for it (up to their busy timeout, then 503). It prints the sizes before and after.
A PostgreSQL database reuses its free space by itself (exit 2, saying what to run instead).`,
    )
    .action(async (options: { db: string }) => {
      const started = performance.now();
      const sizes = await withStore(options.db, 'mustExist', async (store) => {
        try {
          return await store.compact();
        } catch (error) {
          if (error instanceof CompactUnsupported) throw new UsageFailure(error.message);
          throw error;
        }
      });
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      io.stdout.write(`compacted ${options.db} from ${megabytes(sizes.bytesBefore)} to ${megabytes(sizes.bytesAfter)} in ${seconds}s\n`);
    });
}
