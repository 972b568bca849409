/**
 * The imports of data tables on PostgreSQL, in a worker thread of the server with a connection
 * of its own (started by postgresEngine.ts): a table's import parses, checks and renders every
 * line pushed, and encodes them for the database, about two seconds of CPU per 100,000 lines.
 * Here that work holds up this thread only, at a lower priority than the event loop, which goes
 * on answering meanwhile, and gives way to the server's requests (docs/rules.md#table-imports).
 * The transaction is the engine's own (writeTransaction.ts), the same as in the server's thread.
 */
import { workerData } from 'node:worker_threads';
import { giveWayToRequests, type RequestsInProgress } from '../vocabulary/requestsInProgress.js';
import { serveWrites } from '../threads/writeThreadService.js';
import { tenantWrite } from './writeTransaction.js';
import { openPool } from './connection.js';

/** What the thread is started with. */
export interface ImportThreadData {
  connectionString: string;
  namedStatements: boolean;
  busyTimeoutMs: number;
  /** The store's count of its server's requests (`Store.requestsInProgress`): the import gives way to them. */
  requestsInProgress?: RequestsInProgress;
}

const { connectionString, namedStatements, busyTimeoutMs, requestsInProgress } = workerData as ImportThreadData;
// Imports run one at a time per server. A connection lost while idle is replaced when needed;
// the server's own pool logs the loss of its connections to the same database.
const pool = openPool(connectionString, { size: 1, namedStatements, onIdleError: () => {} });

// Between two batches of records, a pause while the server answers requests: the import's
// database process, which no thread priority reaches, then takes at most about half of a core
// from them (on SQLite the writer thread does not pause: the database's one write lock would be
// held longer for every writer).
const afterBatch = requestsInProgress && giveWayToRequests(requestsInProgress);

serveWrites({
  write: (request) => tenantWrite(pool, request.tenantId, request.write, busyTimeoutMs, afterBatch),
  stop: () => pool.end(),
});
