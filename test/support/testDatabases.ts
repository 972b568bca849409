import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { emptyDatabaseFile } from './fixture.js';
import { until } from './until.js';
import { mountSmallDisk, smallDiskUnavailable, type SmallDisk } from './smallDisk.js';

/**
 * The engine the HTTP, CLI and dataset tests run on: SQLite unless `COMPDATA_TEST_ENGINE=postgres`
 * (`make test` runs them once on each; see withPostgres.ts). Tests of one engine's internals
 * (test/store/sqlite, test/store/postgres) choose theirs.
 */
export type TestEngine = 'sqlite' | 'postgres';
export const TEST_ENGINE: TestEngine = process.env.COMPDATA_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

/** Skips a test that is about the other engine's behaviour (`{ skip: onlyOn('sqlite') }`). */
export const onlyOn = (engine: TestEngine): string | false => (TEST_ENGINE === engine ? false : `only on ${engine}`);

export interface DatabaseOptions {
  /**
   * Puts the database on a file system of its own of this many megabytes (smallDisk.ts), for
   * tests of a full disk: the SQLite file, or the PostgreSQL database's tablespace. Needs
   * `smallDiskSkip` to be false.
   */
  smallDiskMegabytes?: number;
}

/**
 * A new empty database for one test, as `--db` names it: a file in a temp dir (SQLite), or a
 * database created on the test run's PostgreSQL server. Removed when the test ends, after
 * whatever `beforeRemoval` was given (servers and stores over it) has closed.
 */
export async function newDatabase(t: { after(fn: () => Promise<void> | void): void }, engine: TestEngine = TEST_ENGINE, options: DatabaseOptions = {}) {
  const logMade = databaseLog(engine);
  const closers: (() => Promise<void>)[] = [];
  let location: string;
  let remove: () => Promise<void>;
  let disk: SmallDisk | undefined;
  if (engine === 'sqlite') {
    if (options.smallDiskMegabytes) disk = mountSmallDisk({ megabytes: options.smallDiskMegabytes });
    const directory = disk ? disk.directory : mkdtempSync(join(tmpdir(), 'compdata-test-'));
    location = join(directory, 'compdata.db');
    logMade?.('');
    remove = async () => (disk ? disk.unmount() : rmSync(directory, { recursive: true, force: true }));
  } else {
    const admin = postgresAdmin();
    const name = `compdata_test_${randomBytes(6).toString('hex')}`;
    let placement = '';
    if (options.smallDiskMegabytes) {
      // The database's own tablespace on the small disk: its tables and indexes live there (the
      // server's WAL stays on its data directory's disk).
      disk = mountSmallDisk({ megabytes: options.smallDiskMegabytes, owner: await postgresServerOwner() });
      await admin.query(`CREATE TABLESPACE ${name} LOCATION '${disk.directory}'`);
      placement = ` TABLESPACE ${name}`;
    }
    // A copy of the run's migrated template (withPostgres.ts), which costs less than migrating anew;
    // on a Citus cluster (withCitus.ts), on every node. Copied as files (PostgreSQL 15 and later,
    // as the run's servers are): for a database this small, cheaper than the default, which
    // writes every block of it to the WAL.
    const template = process.env.COMPDATA_TEST_PG_TEMPLATE;
    const create = `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template} STRATEGY FILE_COPY` : ''}`;
    await Promise.all([admin.query(`${create}${placement}`), ...citusWorkers().map((worker) => worker.query(create))]);
    const url = new URL(admin.url);
    url.pathname = `/${name}`;
    location = url.toString();
    remove = async () => {
      if (logMade) logMade(String(await sessionsOn([admin, ...citusWorkers()], name)));
      await Promise.all([admin, ...citusWorkers()].map((server) => dropDatabase(server, name)));
      if (disk) {
        await admin.query(`DROP TABLESPACE ${name}`);
        disk.unmount();
      }
    };
  }
  t.after(async () => {
    for (const close of closers.reverse()) await close();
    await remove();
  });
  return { location, disk, beforeRemoval: (close: () => Promise<void>) => void closers.push(close) };
}

/**
 * With `COMPDATA_TEST_DATABASE_LOG=FILE`, a line per database made is appended to FILE: its
 * engine, the test file that asked for it (from the stack) and, on PostgreSQL, the sessions
 * (connections) that were opened to it, on every node, written when it is dropped (those that
 * the server has counted by then: a session counts once it has reported its statistics, at
 * its end at the latest). `cut -f2 FILE | sort | uniq -c` counts the databases per file;
 * `awk -F'\t' '{n[$2] += $3} END {for (f in n) print n[f], f}' FILE | sort -n` the sessions.
 * Undefined (nothing to log) without it.
 */
function databaseLog(engine: TestEngine): ((sessions: string) => void) | undefined {
  const log = process.env.COMPDATA_TEST_DATABASE_LOG;
  if (!log) return undefined;
  const file = /[^\s(]*\/test\/(?!support\/)[^\s:]+\.test\.ts/.exec(new Error().stack ?? '')?.[0] ?? 'unknown';
  return (sessions) => appendFileSync(log, `${engine}\t${file.replace(/^.*\/test\//, 'test/')}\t${sessions}\n`);
}

/** The sessions opened to database `name` on `servers` so far (pg_stat_database). */
async function sessionsOn(servers: readonly AdminConnection[], name: string): Promise<number> {
  const counts = await Promise.all(
    servers.map(async (server) => {
      const result = (await server.query(`SELECT coalesce(sum(sessions), 0)::integer AS sessions FROM pg_stat_database WHERE datname = '${name}'`)) as { rows: { sessions: number }[] };
      return result.rows[0]?.sessions ?? 0;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}

/**
 * Why a test of a full disk cannot run on `engine` here (smallDisk.ts; and, for PostgreSQL, a
 * server whose files are not on this machine); false when it can.
 */
export async function smallDiskSkip(engine: TestEngine = TEST_ENGINE): Promise<string | false> {
  const unavailable = smallDiskUnavailable();
  if (unavailable || engine === 'sqlite') return unavailable;
  try {
    await postgresServerOwner();
    return false;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The user the test run's PostgreSQL server runs as: the owner of its data directory. */
async function postgresServerOwner(): Promise<{ uid: number; gid: number }> {
  const rows = (await postgresAdmin().query('SHOW data_directory')) as { rows: { data_directory: string }[] };
  const directory = rows.rows[0]!.data_directory;
  if (!existsSync(directory)) throw new Error(`the PostgreSQL server's files (${directory}) are not on this machine: its disk cannot be made small`);
  const { uid, gid } = statSync(directory);
  return { uid, gid };
}

interface AdminConnection {
  url: string;
  query(sql: string): Promise<unknown>;
}

/** Connections to the test run's PostgreSQL server (`COMPDATA_TEST_PG`) and to the workers of its Citus cluster, if any. */
let admin: AdminConnection | undefined;
let workers: AdminConnection[] | undefined;

function adminConnection(url: string): AdminConnection {
  // Idle connections do not keep the test process alive, and are kept for the whole run (no idle
  // timeout): a test that makes no database for a while (a crash round, a CLI command's run)
  // would otherwise have them closed, and the next test forks new backends for them.
  const pool = new pg.Pool({ connectionString: url, max: 2, allowExitOnIdle: true, idleTimeoutMillis: 0 });
  return { url, query: (sql: string) => pool.query(sql) };
}

function postgresAdmin() {
  const url = process.env.COMPDATA_TEST_PG;
  if (!url) {
    throw new Error(
      'COMPDATA_TEST_ENGINE=postgres needs a server: run the tests through test/support/withPostgres.ts (make test-postgres), or set COMPDATA_TEST_PG=postgres://...',
    );
  }
  return (admin ??= adminConnection(url));
}

/** The workers of the Citus cluster whose coordinator is the run's server (`COMPDATA_TEST_PG_WORKERS`, set by withCitus.ts): none elsewhere. */
function citusWorkers(): AdminConnection[] {
  return (workers ??= (process.env.COMPDATA_TEST_PG_WORKERS ?? '').split(',').filter(Boolean).map(adminConnection));
}

/** Whether the run's server is the coordinator of a Citus cluster (withCitus.ts). */
export const ON_CITUS = TEST_ENGINE === 'postgres' && Boolean(process.env.COMPDATA_TEST_PG_WORKERS);

/**
 * A new database for one test, as `--db` names it (see `newDatabase`), made as `seed` and
 * `import` make one: it exists, without tenants, for the commands that refuse a missing one.
 */
export async function databaseFor(t: { after(fn: () => Promise<void> | void): void }): Promise<string> {
  const { location } = await newDatabase(t);
  await emptyDatabaseFile(location);
  return location;
}

/**
 * Drops a test's database, ending its sessions. FORCE ends the sessions there when it starts, but
 * one may connect in the moment before the database goes (PgBouncer opening a server connection
 * for a client the test left): the drop is then refused ("being accessed by other users") and is
 * tried again until no session comes back.
 */
async function dropDatabase(server: { query(sql: string): Promise<unknown> }, name: string): Promise<void> {
  await until(`database ${name} is dropped`, async () => {
    try {
      await server.query(`DROP DATABASE ${name} WITH (FORCE)`);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === '55006') return false;
      throw error;
    }
  });
}
