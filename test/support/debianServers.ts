import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, chmodSync, chownSync, constants, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { scratchDirectory } from '../../scripts/scratchDirectory.js';
import { TEST_SERVER_SETTINGS } from './testServerSettings.js';

/**
 * Real database servers from Debian's packages, for the tests of several servers (a primary and
 * its streaming replicas, PgBouncer in front of one): `postgresql-15` (`initdb`, `postgres`,
 * `pg_basebackup`) and `pgbouncer`, each started on a free port of 127.0.0.1 in a temp dir of its
 * own and stopped by the test. Both refuse to run as root: as root (CI), every server runs as the
 * unprivileged user `postgres` that Debian's `postgresql-15` package creates.
 *
 * The pieces are general on purpose: `startPostgres` starts any node of a cluster (a primary, a
 * standby made by `pg_basebackup`, or a coordinator and its workers with extra settings such as
 * `shared_preload_libraries`), so a later topology reuses them as they are.
 */

/** Debian's PostgreSQL 15 binaries. */
const POSTGRES_BIN = process.env.COMPDATA_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';
const PGBOUNCER = process.env.COMPDATA_PGBOUNCER ?? '/usr/sbin/pgbouncer';
const SERVER_USER = 'postgres';

/** Why the servers cannot run here (a skip message naming what to install), or false when they can. */
export function debianServersMissing(needs: { pgbouncer?: boolean } = {}): string | false {
  const binaries = ['initdb', 'postgres', 'pg_basebackup'].map((name) => join(POSTGRES_BIN, name));
  if (needs.pgbouncer) binaries.push(PGBOUNCER);
  for (const binary of binaries) {
    try {
      accessSync(binary, constants.X_OK);
    } catch {
      return `${binary} is not installed (apt-get install postgresql-15 pgbouncer; .ci/run does)`;
    }
  }
  if (process.getuid?.() === 0 && serverUser() === undefined) return `running as root and there is no user "${SERVER_USER}" to run the servers as`;
  return false;
}

/** The uid and gid the servers run as: the `postgres` user when we are root, else ourselves (undefined). */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => spawnSync('id', [flag, SERVER_USER], { encoding: 'utf8' });
  const uid = id('-u');
  const gid = id('-g');
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** A directory of our own that the server user owns (and may write), in memory when there is room (scratchDirectory.ts). */
function serverDirectory(prefix: string): string {
  const directory = scratchDirectory(prefix);
  chmodSync(directory, 0o700);
  const user = serverUser();
  if (user) chownSync(directory, user.uid, user.gid);
  return directory;
}

/** Runs a binary as the server user, to its end; throws with its output when it fails. */
function runAsServerUser(binary: string, args: string[]): void {
  const result = spawnSync(binary, args, { ...serverUser(), encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
  if (result.status !== 0) throw new Error(`${binary} ${args.join(' ')} failed (${result.status}): ${result.stderr}${result.stdout}`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A running (or stopped) server process of ours. */
interface ServerProcess {
  readonly port: number;
  /** The process id while it runs (PostgreSQL's postmaster, whose children are its backends). */
  pid(): number | undefined;
  /** `postgres://postgres@127.0.0.1:PORT/DATABASE` */
  url(database?: string): string;
  /** Starts the server again (after `stop`), on the same port and files. */
  start(): Promise<void>;
  /** A fast shutdown (connections are cut); the files stay until `remove`. */
  stop(): Promise<void>;
  /** Stops the server and deletes its files. */
  remove(): Promise<void>;
}

/**
 * Spawns `binary` as the server user and resolves once its stderr (its log) says `ready`, or
 * rejects with that log when it exits first.
 */
async function spawnUntilReady(binary: string, args: string[], ready: RegExp): Promise<ChildProcess> {
  const child = spawn(binary, args, { ...serverUser(), stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
  let log = '';
  const onData = (chunk: Buffer) => (log += chunk.toString('utf8'));
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (ready.test(log)) {
        child.off('exit', exited);
        resolve();
      }
    };
    const exited = () => reject(new Error(`${binary} ended before it was ready: ${log}`));
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.once('exit', exited);
  });
  return child;
}

async function stopProcess(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

interface PostgresOptions {
  /** `postgresql.conf` settings beyond ours. */
  settings?: Record<string, string | number>;
  /** The cluster's files: made by `initdb` (default), or copied from a running primary by `pg_basebackup` (a streaming standby). */
  from?: { standbyOf: ServerProcess };
}

/** The settings of every node: reachable on 127.0.0.1 only, ready to send and receive WAL. */
const BASE_SETTINGS: Record<string, string | number> = {
  listen_addresses: "'127.0.0.1'",
  unix_socket_directories: "''",
  max_connections: 200,
  wal_level: 'replica',
  max_wal_senders: 10,
  hot_standby: 'on',
  // Throwaway data: no fsync (a crash of the machine loses the test, nothing else).
  fsync: 'off',
  full_page_writes: 'off',
  ...TEST_SERVER_SETTINGS,
};

/**
 * Starts a PostgreSQL 15 server of Debian's on a free port, trusting connections from
 * 127.0.0.1 (replication included). Its files are in a temp dir, deleted by `remove`.
 */
export async function startPostgres(options: PostgresOptions = {}): Promise<ServerProcess> {
  const directory = serverDirectory('compdata-pg15-');
  const data = join(directory, 'data');
  const port = await freePort();
  if (options.from) {
    runAsServerUser(join(POSTGRES_BIN, 'pg_basebackup'), ['-h', '127.0.0.1', '-p', String(options.from.standbyOf.port), '-U', 'postgres', '-D', data, '-R', '-X', 'stream', '--checkpoint=fast']);
  } else {
    runAsServerUser(join(POSTGRES_BIN, 'initdb'), ['-D', data, '--auth=trust', '--username=postgres', '--encoding=UTF8', '--locale=C', '--no-sync']);
  }
  const settings = { ...BASE_SETTINGS, ...options.settings, port };
  const conf = Object.entries(settings).map(([name, value]) => `${name} = ${value}`).join('\n');
  // A base backup copies the primary's configuration: ours is appended, so the last one counts.
  writeFileSync(join(data, 'postgresql.auto.conf'), `${conf}\n`, { flag: 'a' });
  return startedServer(port, directory, join(POSTGRES_BIN, 'postgres'), ['-D', data], /database system is ready to accept (read-only )?connections/);
}

/** A primary and its streaming standbys (read replicas), each a server of its own. */
export interface ReplicatedCluster {
  primary: ServerProcess;
  replicas: ServerProcess[];
  /** Resolves once every replica has replayed all the primary wrote so far (or rejects after `timeoutMs`). */
  caughtUp(timeoutMs?: number): Promise<void>;
  remove(): Promise<void>;
}

/** Starts a primary with `replicaCount` streaming standbys. */
export async function startReplicatedCluster(replicaCount: number): Promise<ReplicatedCluster> {
  const primary = await startPostgres();
  const replicas: ServerProcess[] = [];
  try {
    for (let i = 0; i < replicaCount; i += 1) replicas.push(await startPostgres({ from: { standbyOf: primary } }));
  } catch (error) {
    for (const server of [...replicas, primary]) await server.remove();
    throw error;
  }
  return {
    primary,
    replicas,
    caughtUp: (timeoutMs = 10_000) => caughtUp(primary, replicas, timeoutMs),
    async remove() {
      for (const server of [...replicas, primary]) await server.remove();
    },
  };
}

/** One query on a server, over a connection of its own. */
export async function queryOn<Row extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** Polls until every replica's replay position is past the primary's write position now (a deadline, not a fixed sleep). */
async function caughtUp(primary: ServerProcess, replicas: ServerProcess[], timeoutMs: number): Promise<void> {
  const { lsn } = (await queryOn<{ lsn: string }>(primary.url(), 'SELECT pg_current_wal_insert_lsn()::text AS lsn'))[0]!;
  const deadline = Date.now() + timeoutMs;
  for (const replica of replicas) {
    for (;;) {
      const { behind } = (await queryOn<{ behind: boolean }>(replica.url(), 'SELECT coalesce(pg_last_wal_replay_lsn() < $1::pg_lsn, true) AS behind', [lsn]))[0]!;
      if (!behind) break;
      if (Date.now() > deadline) throw new Error(`replica on port ${replica.port} did not replay up to ${lsn} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

export type PoolMode = 'transaction' | 'session';

/**
 * Starts Debian's PgBouncer on a free port in front of `target` (every database of it, as
 * `postgres` without a password), in `mode` pooling.
 */
export async function startPgBouncer(target: ServerProcess, mode: PoolMode): Promise<ServerProcess> {
  const directory = serverDirectory('compdata-pgbouncer-');
  const port = await freePort();
  const ini = join(directory, 'pgbouncer.ini');
  const users = join(directory, 'userlist.txt');
  writeFileSync(users, '"postgres" ""\n');
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=127.0.0.1 port=${target.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      "unix_socket_dir = ''",
      'auth_type = trust',
      `auth_file = ${users}`,
      `pool_mode = ${mode}`,
      'max_client_conn = 500',
      'default_pool_size = 20',
      'ignore_startup_parameters = extra_float_digits,options',
      `logfile = ${join(directory, 'pgbouncer.log')}`,
      `pidfile = ${join(directory, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  const user = serverUser();
  if (user) for (const file of [ini, users]) chownSync(file, user.uid, user.gid);
  mkdirSync(directory, { recursive: true });
  return startedServer(port, directory, PGBOUNCER, ['-v', ini], /process up|listening on/);
}

/** `command` started (and restartable) until its log says `ready`, as a server on `port` whose files are in `directory`. */
async function startedServer(port: number, directory: string, command: string, args: string[], ready: RegExp): Promise<ServerProcess> {
  let child: ChildProcess | undefined;
  const start = async () => {
    child = await spawnUntilReady(command, args, ready);
  };
  await start();
  const server: ServerProcess = {
    port,
    pid: () => child?.pid,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    start,
    stop: () => stopProcess(child, 'SIGINT'),
    async remove() {
      await server.stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
  return server;
}
