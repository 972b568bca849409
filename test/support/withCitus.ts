/**
 * Runs a command with its PostgreSQL tests on a Citus cluster: `node --import tsx
 * test/support/withCitus.ts COMMAND ARGS...` starts a coordinator and two workers
 * (citusCluster.ts), makes the run's template database on it (every table distributed by the
 * migrations, as on any Citus coordinator), runs the command with `COMPDATA_TEST_ENGINE=postgres`,
 * `COMPDATA_TEST_PG` naming the coordinator and `COMPDATA_TEST_PG_WORKERS` the workers (each
 * test database is made on every node: testDatabases.ts), stops the cluster and exits with the
 * command's code. Without Debian's PostgreSQL 15 and Citus installed into it, it says so and
 * exits 0 without running the command.
 */
import { openStore } from '../../src/store/openStore.js';
import { citusMissing, startCitusCluster } from './citusCluster.js';
import { runCommand } from './runCommand.js';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('usage: withCitus.ts COMMAND [ARGS...]\n');
  process.exit(2);
}
const missing = citusMissing();
if (missing) {
  process.stdout.write(`skipping the tests on Citus: ${missing}\n`);
  process.exit(0);
}
const cluster = await startCitusCluster(2);
let code = 1;
try {
  const template = 'compdata_test_template';
  await cluster.createDatabase(template);
  await (await openStore(cluster.coordinator.url(template), { role: 'command' })).close();
  await cluster.makeTemplate(template);
  code = await runCommand(command, args, {
    COMPDATA_TEST_ENGINE: 'postgres',
    COMPDATA_TEST_PG: cluster.coordinator.url(),
    COMPDATA_TEST_PG_WORKERS: cluster.workers.map((worker) => worker.url()).join(','),
    COMPDATA_TEST_PG_TEMPLATE: template,
  });
} finally {
  await cluster.remove();
}
process.exit(code);
