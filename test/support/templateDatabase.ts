import pg from 'pg';
import { openStore } from '../../src/store/openStore.js';

/**
 * A database of the server at `adminUrl` brought up to this build's schema, made anew for the
 * run: its name. Every test database of the run is a copy of it (testDatabases.ts).
 */
export async function migratedTemplate(adminUrl: string): Promise<string> {
  const name = 'compdata_test_template';
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await (await openStore(url.toString(), { role: 'command' })).close();
  return name;
}
