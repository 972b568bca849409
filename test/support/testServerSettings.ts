/**
 * Settings of the PostgreSQL servers the tests start (withPostgres.ts, ownCluster.ts and the
 * Debian servers of debianServers.ts: PgBouncer's, the replicas', Citus' nodes), for data
 * nobody keeps and queries no test measures the speed of:
 * - `jit = off`: a statement whose estimated cost passes `jit_above_cost` (a bulk load's, a
 *   seeded table's) would have its backend load LLVM and compile its expressions, a cost that a
 *   test's few rows never win back; the plans are the same, only executed without compiling.
 * - `autovacuum = off`: the launcher starts a worker in every database in turn (a backend that
 *   connects and reads the catalog), and a test's database lives seconds; the tests that rely
 *   on statistics run ANALYZE themselves (test/store/postgres/pagePlans.test.ts, and the loads'
 *   own, src/store/postgres/loadStatistics.ts).
 */
export const TEST_SERVER_SETTINGS: Readonly<Record<string, string>> = { jit: 'off', autovacuum: 'off' };

/**
 * A server with no replica (the run's server of withPostgres.ts, PgBouncer's): the WAL carries
 * only what crash recovery needs (`wal_level = minimal`, which allows no WAL sender), and a
 * commit does not wait for its WAL to reach the disk (`synchronous_commit = off`; fsync is off
 * anyway): a crash of the machine loses the test, nothing else.
 */
export const NO_REPLICA_SETTINGS: Readonly<Record<string, string | number>> = { wal_level: 'minimal', max_wal_senders: 0, synchronous_commit: 'off' };
