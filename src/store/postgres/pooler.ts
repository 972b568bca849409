import type pg from 'pg';

/**
 * Whether a connection pooler (PgBouncer, ...) is between `pool` and PostgreSQL. A pooler gives
 * each client a cancel key of its own (the BackendKeyData of the connection's start), since it
 * sends a cancel on to whichever server connection the client holds at that moment; so the
 * process id a connection was given is not that of the server process answering it. A direct
 * connection (or one through a plain TCP proxy) is given the server process's own. This holds
 * in every pooling mode and whatever the pool's load, where a probe of which server process
 * answers two statements in a row does not: an idle PgBouncer in transaction pooling hands the
 * same server connection back (last in, first out). Asked on one connection of the pool.
 */
export async function behindPooler(pool: pg.Pool): Promise<boolean> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    // `processID` is the driver's (the BackendKeyData's process id), missing from its types.
    return (client as pg.PoolClient & { processID?: number | null }).processID !== rows[0]?.pid;
  } finally {
    client.release();
  }
}
