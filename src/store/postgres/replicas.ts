import type { ReplicaServer } from '../engine/engine.js';
import { firstRow, statement, type Queryable } from './connection.js';
import type pg from 'pg';
import { keySteps } from './keys.js';
import { postgresReads } from './reads.js';

/**
 * Positions in PostgreSQL's write-ahead log as the store compares them: an LSN as the number of
 * bytes from its start (`pg_wal_lsn_diff(lsn, '0/0')`).
 */
type Position = { position: string };

/**
 * The insert position of the primary's log: past the end of every transaction committed before
 * it was read (the consistency token of a write's answer).
 */
const insertPosition = statement<[], Position>(`SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::text AS position`);
/**
 * How far a replica has replayed the primary's log: what its reads see. A server that is no
 * standby (a primary named as a replica, or behind a pooler) has all of its own log.
 */
const replayPosition = statement<[], Position>(
  `SELECT pg_wal_lsn_diff(CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_insert_lsn() END, '0/0')::text AS position`,
);

export async function logPosition(db: Queryable): Promise<bigint> {
  return BigInt((await firstRow(db, insertPosition))!.position);
}

/**
 * A read replica (`--db-replica`) over a pool of its own: the service's reads, the key lookup, its
 * replay position. `settle` runs before the first replay position is read (how its statements
 * are sent: ./pooler.ts), and again until it succeeds: a replica serves no read before that.
 */
export function replicaServer(name: string, pool: pg.Pool, settle: () => Promise<unknown> = async () => {}): ReplicaServer {
  const keys = keySteps(pool);
  let settled: Promise<unknown> | undefined;
  const ready = () =>
    (settled ??= settle().catch((error: unknown) => {
      settled = undefined;
      throw error;
    }));
  return {
    name,
    reads: postgresReads(pool),
    keys: { lookup: (id) => keys.lookup(id) },
    replayed: async () => {
      await ready();
      return BigInt((await firstRow(pool, replayPosition))?.position ?? '0');
    },
    close: () => pool.end(),
  };
}
