import { request as httpRequest, type Agent } from 'node:http';
import { after } from 'node:test';
import pg from 'pg';
import { createLogger } from '../../src/http/logging.js';
import { startServer, type RunningServer, type ServerOptions } from '../../src/http/server.js';
import { openStore, type OpenStoreOptions } from '../../src/store/openStore.js';
import { LOCK_NAMESPACE } from '../../src/store/postgres/migrations.js';
import { openDatabase, type Db } from '../../src/store/sqlite/db.js';
import type { Store } from '../../src/store/store.js';
import { isAdminPath } from '../../src/http/adminApi.js';
import type { SandboxLimits } from '../../src/http/handlers/admin/adminDeps.js';
import { assertConforms, assertConformsToAdmin } from './contract.js';
import type { SmallDisk } from './smallDisk.js';
import { copyMigratedSqlite } from './sqliteTemplate.js';
import { newDatabase, TEST_ENGINE, type DatabaseOptions, type TestEngine } from './testDatabases.js';

export { onlyOn, TEST_ENGINE } from './testDatabases.js';

/** What the harness needs of a test: where to put what must run when it ends (a `TestContext`, or {@link shared}'s scope). */
export interface Scope {
  after(fn: () => Promise<void> | void): void;
}

/**
 * A fixture the tests of a file (or of a `describe`) share, for those that only read it: made
 * by the first test that asks for it, torn down when the `describe` ends, or when the run ends
 * for one made at a file's top level (`make test` runs a pass's files in one process). Call it
 * where the file's tests are declared; each test then awaits the function it returns. A test
 * that writes makes its own.
 */
export function shared<T>(make: (scope: Scope) => Promise<T>): () => Promise<T> {
  const teardowns: (() => Promise<void> | void)[] = [];
  let made: Promise<T> | undefined;
  after(async () => {
    for (const teardown of teardowns.reverse()) await teardown();
  });
  return () => (made ??= make({ after: (fn) => void teardowns.push(fn) }));
}

/**
 * A database that the tests of a `describe` share (see {@link shared}), each test in a tenant of
 * its own: the function returned gives the database's store and a tenant name not given before
 * (`acme1`, `acme2`, ...). A test that reads back only its own tenant finds exactly what it
 * wrote there; another test's writes seen there would fail its comparison. A test that needs an
 * empty database, or reads across tenants, makes its own.
 */
export function tenantsOfSharedDatabase(): () => Promise<{ store: Store; tenant: string }> {
  const database = shared((scope) => tempDatabase(scope));
  return async () => ({ store: (await database()).store, tenant: `acme${(sharedTenants += 1)}` });
}
let sharedTenants = 0;

export interface Exchange {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body (undefined for HEAD and empty bodies). */
  body: any;
}

export interface CallOptions {
  key?: string;
  /** Sent as `Authorization: Bearer <bearer>` (the administration token). */
  bearer?: string;
  /** A JSON value (sent as application/json) or raw text (sent as is). */
  json?: unknown;
  raw?: string | Buffer;
  headers?: Record<string, string>;
  /** Send the body with Transfer-Encoding: chunked (in two chunks) instead of Content-Length. */
  chunked?: boolean;
  /**
   * Sent over this agent's kept-alive connections instead of a connection of its own (for runs of
   * thousands of requests, such as the fuzz tests). A kept-alive connection that the server
   * closed as it was reused is a reset before any answer: that request is sent once more, on a
   * connection of its own (as Node's documentation of `request.reusedSocket` advises).
   */
  agent?: Agent;
}

/**
 * SQL on the test's database, over a connection of its own, for looking inside and for
 * holding locks. Statements are written once for both engines (`?` placeholders, SQL both
 * speak); rows come as arrays.
 */
interface TestSql {
  rows(sql: string, ...params: unknown[]): Promise<unknown[][]>;
  /** The first column of the first row. */
  value(sql: string, ...params: unknown[]): Promise<unknown>;
  exec(sql: string): Promise<void>;
  /** Holds the write lock that a bulk upsert of the tenant waits for, until the returned release is called. */
  holdWriteLock(tenantId: number): Promise<() => Promise<void>>;
}

export interface TestServer {
  url: string;
  /** The health port's URL, when the server was given one (`healthPort`). */
  healthUrl?: string;
  /** The database as `--db` names it (a file path or a postgres:// URL). */
  database: string;
  /** The store over the same database, as the CLI opens it: for setting up data. */
  store: Store;
  sql: TestSql;
  /** The small disk the database is on, when asked for (`DatabaseOptions.smallDiskMegabytes`). */
  disk?: SmallDisk;
  /** One HTTP exchange; the response is checked against the contract before it is returned. */
  call(method: string, path: string, options?: CallOptions): Promise<Exchange>;
  /** Requests the server has admitted and not yet answered. */
  requestsInProgress: () => number;
  /** With the administration API: a sweep of expired sandboxes now; how many this server removed. */
  sweep?: () => Promise<number>;
  close(): Promise<void>;
}

export interface TempDatabase {
  engine: TestEngine;
  /** The database as `--db` names it. */
  database: string;
  /** The store over the database, as a CLI command opens it. */
  store: Store;
  sql: TestSql;
  /** The small disk the database is on, when asked for. */
  disk?: SmallDisk;
  beforeRemoval: (close: () => Promise<void>) => void;
}

/**
 * A fresh database on the engine of the test run (see testDatabases.ts); removed when the test
 * ends, after whatever was passed to `beforeRemoval` (servers over it) has finished.
 */
export async function tempDatabase(t: Scope, engine: TestEngine = TEST_ENGINE, options?: DatabaseOptions): Promise<TempDatabase> {
  const { location, disk, beforeRemoval } = await newDatabase(t, engine, options);
  // A copy of a migrated file, which the store opens as it would have made it (sqliteTemplate.ts).
  if (engine === 'sqlite') await copyMigratedSqlite(location);
  const store = await openStore(location, { role: 'command' });
  const sql = engine === 'sqlite' ? sqliteSql(openDatabase(location, { busyTimeoutMs: 0 })) : postgresSql(location);
  const closers: (() => Promise<void>)[] = [];
  beforeRemoval(async () => {
    for (const close of closers.reverse()) await close();
    await store.close();
    await sql.close();
  });
  return { engine, database: location, store, sql, disk, beforeRemoval: (close) => void closers.push(close) };
}

/** A fresh SQLite file, with a connection of its own: for tests of the SQLite engine's internals. */
export async function tempSqliteDatabase(t: Scope): Promise<Omit<TempDatabase, 'sql'> & { dbPath: string; db: Db }> {
  const database = await tempDatabase(t, 'sqlite');
  const db = openDatabase(database.database);
  database.beforeRemoval(async () => void (db.open && db.close()));
  return { ...database, dbPath: database.database, db };
}

/** Runs `work` on a store of its own over `database` (another connection, as another process would have). */
export async function withOtherStore<T>(database: string, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(database, { role: 'command', mustExist: true });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

export interface TestServerOptions extends Partial<Omit<ServerOptions, 'store' | 'admin'>> {
  /** Turns the administration API on behind this token, over the server's store. */
  adminToken?: string;
  /** The administration API's limits on sandboxes (`serve --max-sandboxes`, `--max-sandbox-records`); absent: the defaults. */
  sandboxLimits?: SandboxLimits;
  /** How long a write waits for another writer before a 503 (the store's option). */
  busyTimeoutMs?: number;
  /** Opens the server's store instead of `openStore` (for a store with a test's own options). */
  openServedStore?: (database: string, options: OpenStoreOptions) => Promise<Store>;
}

/**
 * A real server on port 0 over a fresh database, with a store of its own opened as `serve` opens
 * it. `prepare` runs on the database before the server starts (for data the test needs);
 * `databaseOptions` say where the database is.
 */
export async function startTestServer(
  t: Scope,
  options: TestServerOptions = {},
  prepare?: (store: Store) => Promise<unknown>,
  databaseOptions?: DatabaseOptions,
): Promise<TestServer> {
  const { database, store, sql, disk, beforeRemoval } = await tempDatabase(t, TEST_ENGINE, databaseOptions);
  await prepare?.(store);
  const server = await serveDatabase(database, options);
  let closed = false;
  const close = async () => {
    if (!closed) await server.close();
    closed = true;
  };
  beforeRemoval(close);
  return {
    url: server.url,
    ...(server.healthUrl !== undefined && { healthUrl: server.healthUrl }),
    database,
    store,
    sql,
    disk,
    close,
    requestsInProgress: server.requestsInProgress,
    ...(server.sweep && { sweep: server.sweep }),
    call: (method, path, callOptions) => exchange(server.url, method, path, callOptions),
  };
}

/**
 * `compdata serve` in this process, on port 0: the store opened as `serve` opens it (or by
 * `openServedStore`), and a server over it; `close` stops the server, then closes the store.
 */
export async function serveDatabase(database: string, options: TestServerOptions = {}): Promise<RunningServer> {
  // Only warnings and errors, on stderr: a request line per call would drown the test output.
  const { busyTimeoutMs, openServedStore = openStore, adminToken, sandboxLimits, ...serverOptions } = options;
  const logger = serverOptions.logger ?? createLogger('warn', process.stderr);
  const store = await openServedStore(database, { role: 'server', mustExist: true, log: logger, ...(busyTimeoutMs !== undefined && { busyTimeoutMs }) });
  try {
    const admin = adminToken === undefined ? {} : { admin: { token: adminToken, store, ...(sandboxLimits && { sandboxLimits }) } };
    const server = await startServer({ store, port: 0, host: '127.0.0.1', logger, ...serverOptions, ...admin });
    return {
      url: server.url,
      ...(server.healthUrl !== undefined && { healthUrl: server.healthUrl }),
      requestsInProgress: server.requestsInProgress,
      ...(server.sweep && { sweep: server.sweep }),
      async close() {
        await server.close();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/**
 * A statement of the test's own connection, tried again while another connection holds the write
 * lock, until `ms` passed. Not SQLite's busy timeout: that waits blocking this thread, from which
 * the server in this process runs its transactions, so that the holder could never finish.
 */
async function whenUnlocked<T>(work: () => T, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return work();
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

function sqliteSql(db: Db): TestSql & { close(): Promise<void> } {
  return {
    rows: (sql, ...params) =>
      whenUnlocked(() => {
        const statement = db.prepare(sql);
        return statement.reader ? (statement.raw().all(...params) as unknown[][]) : (statement.run(...params), []);
      }),
    value: async (sql, ...params) => (db.prepare(sql).raw().get(...params) as unknown[] | undefined)?.[0],
    exec: (sql) => whenUnlocked(() => void db.exec(sql)),
    async holdWriteLock() {
      await whenUnlocked(() => db.exec('BEGIN IMMEDIATE'));
      return async () => {
        if (db.inTransaction) db.exec('ROLLBACK');
      };
    },
    close: async () => void (db.open && db.close()),
  };
}

function postgresSql(location: string): TestSql & { close(): Promise<void> } {
  const pool = new pg.Pool({ connectionString: location, max: 3, allowExitOnIdle: true });
  pool.on('error', () => {});
  const numbered = (sql: string) => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${(n += 1)}`);
  };
  const rows = async (sql: string, ...params: unknown[]) => (await pool.query({ text: numbered(sql), values: params, rowMode: 'array' })).rows as unknown[][];
  return {
    rows,
    value: async (sql, ...params) => (await rows(sql, ...params))[0]?.[0],
    exec: async (sql) => void (await pool.query(sql)),
    async holdWriteLock(tenantId) {
      const client = await pool.connect();
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_NAMESPACE, tenantId]);
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        await client.query('ROLLBACK');
        client.release();
      };
    },
    close: () => pool.end(),
  };
}

/**
 * One exchange over node:http (not fetch, which may not set Host or send odd requests).
 * Every response is checked against the contract before it is returned.
 */
export async function exchange(base: string, method: string, path: string, options: CallOptions = {}): Promise<Exchange> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers['X-API-Key'] = options.key;
  if (options.bearer !== undefined) headers.Authorization = `Bearer ${options.bearer}`;
  let body: string | Buffer | undefined = options.raw;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['Content-Type'] ??= 'application/json';
  }
  // Framed explicitly: node's client sends a GET's body with neither header (garbage on the wire).
  if (body !== undefined && options.chunked) headers['Transfer-Encoding'] = 'chunked';
  else if (body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(body));
  const send = (agent: Agent | false) => new Promise<{ status: number; headers: Headers; text: string }>(
    (resolve, reject) => {
      // The path goes out as given: no URL parsing that would resolve dot segments or re-encode.
      // A connection of its own (no agent) unless an agent is given: a kept-alive one could be
      // reused at the moment the server closes it for idleness (servers in tests have short
      // timeouts), a reset.
      const { hostname, port } = new URL(base);
      const request = httpRequest({ hostname, port, path, method, headers, agent }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const received = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined) received.set(name, Array.isArray(value) ? value.join(', ') : value);
          }
          resolve({ status: response.statusCode!, headers: received, text: Buffer.concat(chunks).toString('utf8') });
        });
        response.on('error', reject);
      });
      request.on('error', (error: NodeJS.ErrnoException) => (agent && request.reusedSocket && error.code === 'ECONNRESET' ? resolve(send(false)) : reject(error)));
      if (options.chunked && body !== undefined && body.length > 1) {
        const half = Math.floor(body.length / 2);
        request.write(body.slice(0, half));
        request.end(body.slice(half));
      } else {
        request.end(body);
      }
    },
  );
  const { status, headers: responseHeaders, text } = await send(options.agent ?? false);
  // A path of the administration API is checked against its own document (openapi/admin.yaml).
  const check = isAdminPath(path) ? assertConformsToAdmin : assertConforms;
  const parsed = check(method, path.split('?')[0]!, status, responseHeaders, text);
  return { status, headers: responseHeaders, text, body: parsed };
}
