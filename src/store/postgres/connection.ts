import { createHash } from 'node:crypto';
import pg from 'pg';

/** A pool, or one of its connections (inside a transaction). */
export type Queryable = pg.Pool | pg.PoolClient;

/**
 * A statement typed once, where it is written: `Params` are its `$1..$n` values, `Row` the
 * shape of each row it returns. Sent as a named prepared statement (the name is derived from
 * the text), so each connection plans it once.
 */
export interface Statement<Params extends readonly unknown[], Row> {
  readonly name: string;
  readonly text: string;
  /** Never set: carries the types. */
  readonly types?: { params: Params; row: Row };
}

export function statement<Params extends readonly unknown[], Row = never>(text: string): Statement<Params, Row> {
  const written = { name: `compdata_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`, text };
  texts.add(text);
  return written;
}

const texts = new Set<string>();

/** Every statement text written so far (for the test that holds each one to its tenant). */
export const statementTexts = (): ReadonlySet<string> => texts;

/**
 * Pools (and their connections) whose statements go unnamed: behind PgBouncer in transaction
 * pooling before 1.21 (Debian's 1.18), a statement prepared on one server connection is not
 * there on the next, so nothing is prepared by name (`prepared=off` on the URL, or a pooler
 * seen by ./pooler.ts).
 */
const unnamed = new WeakSet<Queryable>();

/** From now on, `pool` prepares nothing by name (before its first named statement: see ./pooler.ts). */
export const prepareNothingByName = (pool: pg.Pool): void => void unnamed.add(pool);

/** `s` as the query `db` is sent: a named prepared statement, unless the pool says otherwise. */
const queryOf = (db: Queryable, s: { name: string; text: string }, values: readonly unknown[]): pg.QueryConfig =>
  unnamed.has(db) ? { text: s.text, values: [...values] } : { name: s.name, text: s.text, values: [...values] };

/** Every row of `s`. */
export async function rowsOf<P extends readonly unknown[], R>(db: Queryable, s: Statement<P, R>, ...values: P): Promise<R[]> {
  const result = await db.query<R & pg.QueryResultRow>(queryOf(db, s, values));
  return result.rows;
}

/** The first row of `s`, or `undefined`. */
export async function firstRow<P extends readonly unknown[], R>(db: Queryable, s: Statement<P, R>, ...values: P): Promise<R | undefined> {
  return (await rowsOf(db, s, ...values))[0];
}

/** Runs `s`; the number of rows it wrote. */
export async function run<P extends readonly unknown[]>(db: Queryable, s: Statement<P, never>, ...values: P): Promise<number> {
  const result = await db.query(queryOf(db, s, values));
  return result.rowCount ?? 0;
}

/**
 * The first column, a `text`, of every row of `s`, the rows asked for in binary format: the
 * database then sends each text as it holds it (in text format it copies each into a C string
 * and counts its length byte by byte first), and the driver makes the same string of it.
 */
export async function textsOf<P extends readonly unknown[]>(db: Queryable, s: Statement<P, { [column: string]: string }>, ...values: P): Promise<string[]> {
  // `binary` is the driver's, missing from its types' QueryArrayConfig.
  const query: pg.QueryArrayConfig & { binary: true } = { ...queryOf(db, s, values), rowMode: 'array', binary: true };
  const result = await db.query<[string]>(query);
  return result.rows.map((row) => row[0]);
}

/**
 * 64-bit integers (`bigint` keys and positions, `count(*)`) as JS numbers: every one the
 * service stores is at most 2^53 - 1, the bound the paging code already works to.
 */
const INT8: number = pg.types.builtins.INT8;
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string): ((text: string) => unknown) =>
    oid === INT8 ? (text: string) => Number(text) : (pg.types.getTypeParser(oid, format as 'text') as (text: string) => unknown)) as pg.CustomTypesConfig['getTypeParser'],
};

export interface PoolOptions {
  /** Connections at most (`--db-pool`). */
  size: number;
  /** Told about a connection that fails while idle (the server went away); the pool replaces it. */
  onIdleError: (error: Error) => void;
  /** Whether statements are prepared by name on each connection (default); off behind PgBouncer's transaction pooling before 1.21. */
  namedStatements?: boolean;
}

/** How long a new connection may take before the attempt fails. */
const CONNECT_TIMEOUT_MS = 5_000;

export function openPool(connectionString: string, options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: options.size,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    application_name: 'compdata',
    types,
  });
  pool.on('error', options.onIdleError);
  if (options.namedStatements === false) unnamed.add(pool);
  return pool;
}

/**
 * Runs `work` in one transaction on a connection of its own: committed when it resolves,
 * rolled back when it throws. A serialization failure or a deadlock (another transaction's
 * fault as much as this one's) runs the whole of `work` again, up to `attempts` times, when
 * `work` may be repeated; any other error is thrown as it is.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  options: { begin?: string; attempts?: number } = {},
): Promise<T> {
  const attempts = options.attempts ?? 1;
  for (let attempt = 1; ; attempt += 1) {
    const client = await pool.connect();
    if (unnamed.has(pool)) unnamed.add(client);
    // A connection lost while it is checked out also emits 'error' on its client, and an
    // 'error' without a listener would end the process. The loss is handled where it shows
    // anyway: the query in progress fails with it.
    client.on('error', ignoreLostConnection);
    let broken: Error | undefined;
    try {
      await client.query(options.begin ?? 'BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      if (!(isRetryable(error) && attempt < attempts)) throw error;
    } finally {
      // A connection whose rollback failed is not given back to the pool.
      client.off('error', ignoreLostConnection);
      client.release(broken);
    }
    await new Promise((resolve) => setTimeout(resolve, 5 * attempt * Math.random()));
  }
}

function ignoreLostConnection(): void {}

const sqlState = (error: unknown): unknown => (error as { code?: unknown } | null)?.code;

/** A serialization failure or a deadlock: the transaction may succeed when run again. */
function isRetryable(error: unknown): boolean {
  const code = sqlState(error);
  return code === '40001' || code === '40P01';
}

/** `lock_timeout` ran out: another writer held the lock this transaction waited for. */
export function isLockTimeout(error: unknown): boolean {
  return sqlState(error) === '55P03';
}

/**
 * The database server could not extend a file (`53100`, disk_full): the statement failed and the
 * transaction is rolled back. (A server whose WAL disk fills stops instead: it is then
 * unreachable until restarted.)
 */
export function isDiskFull(error: unknown): boolean {
  return sqlState(error) === '53100' || isInitFileUnwritable(error);
}

/**
 * A new connection whose server process could not write the database's relation-cache file
 * (`could not write init file`, an internal error, FATAL): on a disk with no room left, the
 * server refuses connections to a database whose cached catalog was invalidated by a write.
 */
function isInitFileUnwritable(error: unknown): boolean {
  return (error as Error | null)?.message === 'could not write init file';
}

/**
 * The database cannot be reached or is going away: a refused or broken connection, a server
 * shutting down or starting up, too many connections. Nothing of the request's fault.
 */
export function isUnreachable(error: unknown): boolean {
  const code = sqlState(error);
  if (typeof code === 'string') {
    if (/^(ECONN|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)/.test(code)) return true;
    // Class 08 (connection exception), the server shutting down or starting up, no connection left.
    if (code.startsWith('08') || ['57P01', '57P02', '57P03', '53300'].includes(code)) return true;
  }
  const message = (error as Error | null)?.message ?? '';
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|not queryable|Connection ended/i.test(message);
}

/**
 * Whether PostgreSQL can hold `text`: its `text` type has no U+0000 (SQLite's has). A name with
 * one is no stored name, so a lookup by it finds nothing instead of failing.
 */
export const storable = (text: string): boolean => !text.includes('\u0000');
