import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { debianServersMissing, queryOn, startPostgres } from './debianServers.js';

/**
 * A Citus cluster on this machine for the tests: a coordinator and its workers, each a server of
 * Debian's PostgreSQL 15 (debianServers.ts) with `shared_preload_libraries = 'citus'`. Citus
 * keeps its metadata per database: a database of the cluster is made on every node (same
 * name), with the extension, and the workers registered on the coordinator; a copy of a
 * database made a template (`CREATE DATABASE ... TEMPLATE` on every node) is a cluster of its
 * own at once, metadata and shards included.
 */

const POSTGRES_LIB = process.env.COMPDATA_POSTGRES_LIB ?? '/usr/lib/postgresql/15/lib';
const POSTGRES_EXTENSIONS = process.env.COMPDATA_POSTGRES_EXTENSIONS ?? '/usr/share/postgresql/15/extension';

/** Why a Citus cluster cannot run here (a skip message), or false when it can. */
export function citusMissing(): string | false {
  const servers = debianServersMissing();
  if (servers) return servers;
  for (const file of [join(POSTGRES_LIB, 'citus.so'), join(POSTGRES_EXTENSIONS, 'citus.control')]) {
    try {
      accessSync(file, constants.R_OK);
    } catch {
      return `Citus is not installed into PostgreSQL 15 (${file} is missing; see https://docs.citusdata.com/en/stable/installation/multi_node.html)`;
    }
  }
  return false;
}

const NODE_SETTINGS = {
  shared_preload_libraries: "'citus'",
  // The nodes talk over 127.0.0.1 without TLS (libpq would otherwise look for client certificates in $HOME).
  'citus.node_conninfo': "'sslmode=disable'",
  // Few shards: each test database is a copy of every shard; two per worker still spread the tenants.
  'citus.shard_count': 4,
  max_prepared_transactions: 50,
  // The tests' own SQL looks inside across tenants (joins by keys without the tenant); the
  // engine's statements are held to one node each by test/store/postgres/citus.test.ts.
  'citus.enable_repartition_joins': 'on',
  // A commit does not wait for its WAL to reach the disk (fsync is off anyway): throwaway data.
  synchronous_commit: 'off',
  // One connection from a coordinator's session to each worker, not one per shard placement
  // there: a statement over several shards of a worker runs them one after another on it. Each
  // connection is a backend forked on the worker, which loads Citus' metadata anew; no test
  // measures the speed of a statement across shards.
  'citus.max_adaptive_executor_pool_size': 1,
};

/** A node of the cluster: its port, its postmaster's process id (whose children are its backends), its URL. */
interface CitusNode {
  port: number;
  pid(): number | undefined;
  url(database?: string): string;
}

export interface CitusCluster {
  coordinator: CitusNode;
  workers: CitusNode[];
  /** A new database of the cluster: a copy of `template` (see {@link CitusCluster.makeTemplate}), or an empty one with the workers registered. */
  createDatabase(name: string, template?: string): Promise<void>;
  /** Makes `name` a template on every node (no connection is then let in, and those open are ended). */
  makeTemplate(name: string): Promise<void>;
  dropDatabase(name: string): Promise<void>;
  remove(): Promise<void>;
}

/** Starts a coordinator and `workerCount` workers. */
export async function startCitusCluster(workerCount = 2): Promise<CitusCluster> {
  const started = await Promise.allSettled(Array.from({ length: workerCount + 1 }, () => startPostgres({ settings: NODE_SETTINGS })));
  const servers = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    for (const server of servers) await server.remove();
    throw failed.reason;
  }
  const [coordinator, ...workers] = servers as [(typeof servers)[0], ...typeof servers];
  const onEveryNode = (work: (server: typeof coordinator) => Promise<unknown>) => Promise.all(servers.map(work));
  return {
    coordinator,
    workers,
    async createDatabase(name, template) {
      await onEveryNode((server) => queryOn(server.url(), `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`));
      if (template) return;
      await onEveryNode((server) => queryOn(server.url(name), 'CREATE EXTENSION citus'));
      await queryOn(coordinator.url(name), 'SELECT citus_set_coordinator_host($1, $2)', ['127.0.0.1', coordinator.port]);
      for (const worker of workers) await queryOn(coordinator.url(name), 'SELECT citus_add_node($1, $2)', ['127.0.0.1', worker.port]);
    },
    async makeTemplate(name) {
      // Citus' maintenance daemon and the nodes' cached connections stay in a database: ended here, kept out after.
      await onEveryNode(async (server) => {
        await queryOn(server.url(), `ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false IS_TEMPLATE true`);
        await queryOn(server.url(), 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
      });
    },
    async dropDatabase(name) {
      await onEveryNode((server) => queryOn(server.url(), `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
    async remove() {
      for (const server of servers) await server.remove();
    },
  };
}
