import { Command } from 'commander';
import { parseText } from './arguments.js';
import type { CommandIo } from './commandIo.js';
import { DB_HELP, withStore } from './database.js';
import { CommandFailure } from './errors.js';

export function checkCommand(io: CommandIo): Command {
  return new Command('check')
    .description("check a database's integrity and the data model's invariants")
    .requiredOption('--db <path>', `${DB_HELP} (must exist)`, parseText)
    .addHelpText(
      'after',
      `
Checks, from one snapshot (servers may go on writing): SQLite's integrity check and foreign
keys; then, tenant by tenant: no user in two groups of one dimension in a month, no user with
two managers in a month, no cycle of managers, the dimension fields stored for the records
agreeing with the group attributions, the records' positions dense.
On a Citus coordinator, a line first says how the tables are distributed. Exit 0 when everything holds; 1 with one line on stdout per kind of violation found, naming
its first example (and a count on stderr), e.g.
  manager-cycle: tenant "acme": managers go round in a cycle in 2026-03: a@x is managed by b@x is managed by a@x`,
    )
    .action(async (options: { db: string }) => {
      const [violations, distribution] = await withStore(options.db, 'mustExist', async (store) => [await store.check(), await store.distribution()] as const);
      if (distribution) io.stdout.write(`distribution: ${distribution}\n`);
      for (const { kind, example } of violations) io.stdout.write(`${kind}: ${example}\n`);
      if (violations.length > 0) throw new CommandFailure(`${options.db}: ${violations.length} kind(s) of violation found`);
      io.stdout.write(`ok: ${options.db} holds every invariant\n`);
    });
}
