/**
 * The SQLite writer of a server process, in a worker thread of its own with a connection of its
 * own (started by writer.ts). A bulk upsert that waits for another process's write lock, or
 * runs a transaction of 200 items, holds up this thread only: the event loop of the server goes
 * on reading, accepting and answering meanwhile. Requests come one at a time, in order, so
 * writes stay serialised exactly as before (docs/rules.md#bulk-attributions); each is one
 * IMMEDIATE transaction (bulkUpsert.ts).
 */
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { tenantWriter } from './bulkUpsert.js';
import { openDatabase } from './db.js';
import { CHECKPOINT_BY_ITSELF, STOP, type WriteReply, type WriterData, type WriterMessage } from './writerProtocol.js';

/**
 * The nice value of this thread (on Linux a per-thread attribute: `setPriority` without a pid
 * changes the calling thread only). On a busy machine the event loop thread gets the CPU first,
 * so that reads, accepts and health checks keep their latency while writes queue; a write still
 * gets about a quarter of a contended core.
 */
const WRITER_NICE = 5;

/** SQLite's own threshold (pages in the WAL) for a commit that checkpoints. */
const AUTOCHECKPOINT_PAGES = 1000;

const { path, busyTimeoutMs, checkpoints, exitInFirstTransaction } = workerData as WriterData;
setPriority(WRITER_NICE);
const db = openDatabase(path, { busyTimeoutMs, role: 'writer' });
if (!checkpoints) db.pragma('wal_autocheckpoint = 0');
let busyTimeout = busyTimeoutMs;
const write = tenantWriter(db, exitInFirstTransaction ? () => process.exit(70) : undefined);

// Requests are taken one after the other: a write's transaction spans its awaits (bulkUpsert.ts).
let queue = Promise.resolve();
parentPort!.on('message', (request: WriterMessage) => {
  queue = queue.then(() => handle(request));
});

async function handle(request: WriterMessage): Promise<void> {
  if (request === STOP) {
    db.close();
    process.exit(0);
  }
  if (request === CHECKPOINT_BY_ITSELF) {
    db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    return;
  }
  let reply: WriteReply;
  try {
    // The request waits for another writer's lock until its own deadline, not a fresh timeout:
    // queued behind a lock, it would otherwise wait once per request ahead of it.
    const remaining = Math.max(0, Math.round(request.deadline - Date.now()));
    if (remaining !== busyTimeout) db.pragma(`busy_timeout = ${(busyTimeout = remaining)}`);
    reply = { id: request.id, outcome: await write(request.tenantId, request.write, request.arrivedAt) };
  } catch (error) {
    const { message, code } = error as { message?: unknown; code?: unknown };
    reply = { id: request.id, error: { message: String(message), code: typeof code === 'string' ? code : undefined } };
  }
  parentPort!.postMessage(reply);
}
