/**
 * The SQLite writer of a server process, in a worker thread of its own with a connection of its
 * own (started by writer.ts). A bulk upsert that waits for another process's write lock, or
 * runs a transaction of 200 items, holds up this thread only: the event loop of the server goes
 * on reading, accepting and answering meanwhile. Requests come one at a time, in order, so
 * writes stay serialised exactly as before (docs/rules.md#bulk-attributions); each is one
 * IMMEDIATE transaction (writeTransaction.ts), served by ../threads/writeThreadService.ts.
 */
import { workerData } from 'node:worker_threads';
import { serveWrites } from '../threads/writeThreadService.js';
import { tenantWriter } from './writeTransaction.js';
import { openDatabase } from './db.js';
import { CHECKPOINT_BY_ITSELF, type WriterData } from './writerProtocol.js';

/** SQLite's own threshold (pages in the WAL) for a commit that checkpoints. */
const AUTOCHECKPOINT_PAGES = 1000;

const { path, busyTimeoutMs, checkpoints, exitInFirstTransaction } = workerData as WriterData;
const db = openDatabase(path, { busyTimeoutMs, role: 'writer' });
if (!checkpoints) db.pragma('wal_autocheckpoint = 0');
const write = tenantWriter(db, exitInFirstTransaction ? () => process.exit(70) : undefined);

let busyTimeout = busyTimeoutMs;
serveWrites({
  async write(request) {
    // The request waits for another writer's lock until its own deadline, not a fresh timeout:
    // queued behind a lock, it would otherwise wait once per request ahead of it.
    const remaining = Math.max(0, Math.round(request.deadline - Date.now()));
    if (remaining !== busyTimeout) db.pragma(`busy_timeout = ${(busyTimeout = remaining)}`);
    return write(request.tenantId, request.write, request.arrivedAt);
  },
  stop: () => void db.close(),
  other(message) {
    if (message === CHECKPOINT_BY_ITSELF) db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  },
});
