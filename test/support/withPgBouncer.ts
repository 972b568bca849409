/**
 * Runs a command with its PostgreSQL tests going through PgBouncer: `node --import tsx
 * test/support/withPgBouncer.ts [--mode transaction|session] COMMAND ARGS...` starts a
 * PostgreSQL 15 server and Debian's PgBouncer in front of it (debianServers.ts), runs the
 * command with `COMPDATA_TEST_ENGINE=postgres` and `COMPDATA_TEST_PG` naming PgBouncer (so every
 * test database, store, server and CLI command of the run connects through it) and
 * `COMPDATA_TEST_PGBOUNCER` its pooling mode (for the tests of PgBouncer itself), stops both and
 * exits with the command's code. In transaction pooling (the default) the URL says
 * `prepared=off`: Debian's PgBouncer (1.18) keeps no prepared statement between transactions.
 * The run's template database is migrated on the server directly (a template must have no
 * connection open, and PgBouncer keeps its server connections). Without the servers installed,
 * it says so and exits 0 without running the command (the tests it runs also run without it).
 */
import { debianServersMissing, startPgBouncer, startPostgres, type PoolMode } from './debianServers.js';
import { runCommand } from './runCommand.js';
import { migratedTemplate } from './templateDatabase.js';
import { NO_REPLICA_SETTINGS } from './testServerSettings.js';

let args = process.argv.slice(2);
let mode: PoolMode = 'transaction';
if (args[0] === '--mode') {
  if (args[1] !== 'transaction' && args[1] !== 'session') {
    process.stderr.write('withPgBouncer.ts: --mode is transaction or session\n');
    process.exit(2);
  }
  mode = args[1];
  args = args.slice(2);
}
const [command, ...commandArgs] = args;
if (!command) {
  process.stderr.write('usage: withPgBouncer.ts [--mode transaction|session] COMMAND [ARGS...]\n');
  process.exit(2);
}
const missing = debianServersMissing({ pgbouncer: true });
if (missing) {
  process.stdout.write(`skipping the tests through PgBouncer: ${missing}\n`);
  process.exit(0);
}
const server = await startPostgres({ settings: NO_REPLICA_SETTINGS });
const bouncer = await startPgBouncer(server, mode);
let code = 1;
try {
  const template = await migratedTemplate(server.url());
  const through = new URL(bouncer.url());
  if (mode === 'transaction') through.searchParams.set('prepared', 'off');
  code = await runCommand(command, commandArgs, {
    COMPDATA_TEST_ENGINE: 'postgres',
    COMPDATA_TEST_PG: through.toString(),
    COMPDATA_TEST_PG_TEMPLATE: template,
    COMPDATA_TEST_PGBOUNCER: mode,
  });
} finally {
  await bouncer.remove();
  await server.remove();
}
process.exit(code);
