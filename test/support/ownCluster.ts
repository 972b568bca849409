import type { TestContext } from 'node:test';
import pg from 'pg';
import { startCluster, type Cluster, type ClusterOptions } from '../../scripts/embeddedPostgres.js';
import { TEST_SERVER_SETTINGS } from './testServerSettings.js';

/**
 * A PostgreSQL cluster of the test's own (for tests that stop it, or put its files somewhere
 * odd), with one empty database `name` on it; stopped when the test ends.
 */
export async function databaseOnOwnCluster(t: TestContext, name: string, options?: ClusterOptions): Promise<{ cluster: Cluster; database: string }> {
  const cluster = await startCluster({ ...options, settings: { ...TEST_SERVER_SETTINGS, ...options?.settings } });
  t.after(() => cluster.stop());
  const admin = new pg.Client({ connectionString: cluster.adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return { cluster, database: cluster.adminUrl.replace(/\/postgres$/, `/${name}`) };
}
