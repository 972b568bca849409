import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { emptyDatabaseFile } from './fixture.js';

/**
 * The engine the HTTP, CLI and dataset tests run on: SQLite unless `COMPDATA_TEST_ENGINE=postgres`
 * (`make test` runs them once on each; see withPostgres.ts). Tests of one engine's internals
 * (test/store/sqlite, test/store/postgres) choose theirs.
 */
export type TestEngine = 'sqlite' | 'postgres';
export const TEST_ENGINE: TestEngine = process.env.COMPDATA_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

/** Skips a test that is about the other engine's behaviour (`{ skip: onlyOn('sqlite') }`). */
export const onlyOn = (engine: TestEngine): string | false => (TEST_ENGINE === engine ? false : `only on ${engine}`);

/**
 * A new empty database for one test, as `--db` names it: a file in a temp dir (SQLite), or a
 * database created on the test run's PostgreSQL server. Removed when the test ends, after
 * whatever `beforeRemoval` was given (servers and stores over it) has closed.
 */
export async function newDatabase(t: { after(fn: () => Promise<void> | void): void }, engine: TestEngine = TEST_ENGINE) {
  const closers: (() => Promise<void>)[] = [];
  let location: string;
  let remove: () => Promise<void>;
  if (engine === 'sqlite') {
    const directory = mkdtempSync(join(tmpdir(), 'compdata-test-'));
    location = join(directory, 'compdata.db');
    remove = async () => rmSync(directory, { recursive: true, force: true });
  } else {
    const admin = postgresAdmin();
    const name = `compdata_test_${randomBytes(6).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(admin.url);
    url.pathname = `/${name}`;
    location = url.toString();
    remove = async () => void (await admin.query(`DROP DATABASE ${name} WITH (FORCE)`));
  }
  t.after(async () => {
    for (const close of closers.reverse()) await close();
    await remove();
  });
  return { location, beforeRemoval: (close: () => Promise<void>) => void closers.push(close) };
}

/** A connection to the test run's PostgreSQL server (`COMPDATA_TEST_PG`). */
let admin: { url: string; query(sql: string): Promise<unknown> } | undefined;

function postgresAdmin() {
  const url = process.env.COMPDATA_TEST_PG;
  if (!url) {
    throw new Error(
      'COMPDATA_TEST_ENGINE=postgres needs a server: run the tests through test/support/withPostgres.ts (make test-postgres), or set COMPDATA_TEST_PG=postgres://...',
    );
  }
  // Idle connections do not keep the test process alive.
  admin ??= { url, query: (sql: string) => pool.query(sql) };
  const pool = new pg.Pool({ connectionString: url, max: 2, allowExitOnIdle: true });
  return admin;
}

/**
 * A new database for one test, as `--db` names it (see `newDatabase`), made as `seed` and
 * `import` make one: it exists, without tenants, for the commands that refuse a missing one.
 */
export async function databaseFor(t: { after(fn: () => Promise<void> | void): void }): Promise<string> {
  const { location } = await newDatabase(t);
  await emptyDatabaseFile(location);
  return location;
}
