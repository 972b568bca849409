/**
 * The imports of data tables on PostgreSQL, in a worker thread of the server with a connection
 * of its own (started by postgresEngine.ts): a table's import parses, checks and renders every
 * line pushed, and encodes them for the database, about two seconds of CPU per 100,000 lines.
 * Here that work holds up this thread only, at a lower priority than the event loop, which goes
 * on answering meanwhile (docs/rules.md#table-imports). The transaction is the engine's own
 * (bulkUpsert.ts), the same as in the server's thread.
 */
import { workerData } from 'node:worker_threads';
import { serveWrites } from '../threads/writeService.js';
import { tenantWrite } from './bulkUpsert.js';
import { openPool } from './connection.js';

/** What the thread is started with. */
export interface ImportThreadData {
  connectionString: string;
  namedStatements: boolean;
  busyTimeoutMs: number;
}

const { connectionString, namedStatements, busyTimeoutMs } = workerData as ImportThreadData;
// Imports run one at a time per server. A connection lost while idle is replaced when needed;
// the server's own pool logs the loss of its connections to the same database.
const pool = openPool(connectionString, { size: 1, namedStatements, onIdleError: () => {} });

serveWrites({
  write: (request) => tenantWrite(pool, request.tenantId, request.write, busyTimeoutMs),
  stop: () => pool.end(),
});
