/**
 * Runs a command with one PostgreSQL server for all of it: `node --import tsx
 * test/support/withPostgres.ts COMMAND ARGS...` starts a cluster (scripts/embeddedPostgres.ts), runs
 * the command with `COMPDATA_TEST_ENGINE=postgres` and `COMPDATA_TEST_PG` set to the server,
 * stops the cluster and exits with the command's code. The server is set for throwaway data and
 * no replica (testServerSettings.ts). The test harness then gives every
 * test a fresh database on that server (harness.ts), a copy of a template database migrated
 * once here (`COMPDATA_TEST_PG_TEMPLATE`). With `COMPDATA_TEST_PG` already set, that server is
 * used and none is started.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { startCluster, type Cluster } from '../../scripts/embeddedPostgres.js';
import { migratedTemplate } from './templateDatabase.js';
import { NO_REPLICA_SETTINGS, TEST_SERVER_SETTINGS } from './testServerSettings.js';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('usage: withPostgres.ts COMMAND [ARGS...]\n');
  process.exit(2);
}
const given = process.env.COMPDATA_TEST_PG;
const cluster: Cluster | undefined = given ? undefined : await startCluster({ settings: { ...TEST_SERVER_SETTINGS, ...NO_REPLICA_SETTINGS } });
const adminUrl = given ?? cluster!.adminUrl;
const template = await migratedTemplate(adminUrl);
const child = spawn(command, args, {
  stdio: 'inherit',
  env: { ...process.env, COMPDATA_TEST_ENGINE: 'postgres', COMPDATA_TEST_PG: adminUrl, COMPDATA_TEST_PG_TEMPLATE: template },
});
const forward = (signal: NodeJS.Signals) => child.kill(signal);
process.on('SIGINT', forward);
process.on('SIGTERM', forward);
const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
await cluster?.stop();
process.exit(code ?? (signal ? 1 : 0));

