/**
 * A process of its own, started by test/support/reachableBinaries.test.ts from a copy of the
 * checkout: starts a throwaway cluster as the PostgreSQL test pass does
 * (scripts/embeddedPostgres.ts), asks it one query, stops it, and prints on one line of JSON
 * the query's answer, the server's process id and data directory (from its `postmaster.pid`),
 * and the binary that process ran (from /proc, read while it runs).
 */
import { readlinkSync } from 'node:fs';
import pg from 'pg';
import { startCluster } from '../../scripts/embeddedPostgres.js';

const cluster = await startCluster();
const client = new pg.Client({ connectionString: cluster.adminUrl });
await client.connect();
const { rows } = await client.query<{ one: number; pid: string; data_directory: string }>(
  `SELECT 1 AS one, split_part(pg_read_file('postmaster.pid'), E'\\n', 1) AS pid, current_setting('data_directory') AS data_directory`,
);
await client.end();
const { one, pid, data_directory: dataDirectory } = rows[0]!;
const binary = readlinkSync(`/proc/${pid}/exe`);
await cluster.stop();
process.stdout.write(`${JSON.stringify({ one, pid: Number(pid), dataDirectory, binary })}\n`);
