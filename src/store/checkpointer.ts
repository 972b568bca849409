import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Db } from './db.js';

/**
 * WAL checkpoints off the request path. By default SQLite checkpoints inside the COMMIT that
 * pushes the WAL past 1000 pages, so every few bulk upserts one of them also copies ~4 MB into
 * the database file and syncs it (~10 ms on a store of 1,000,000 attributions). Here the
 * server's connection stops checkpointing, and a worker thread with a connection of its own
 * runs a PASSIVE checkpoint (it never blocks readers or writers, and returns at once when
 * there is nothing new) every few milliseconds.
 * Other processes on the same file (the CLI, other servers) keep their own checkpointing.
 * Should the worker stop, the connection checkpoints by itself again.
 */
export interface Checkpointer {
  stop(): Promise<void>;
}

/** SQLite's own threshold (pages in the WAL), restored should the worker stop. */
const PAGES = 1000;
/**
 * WAL pages after which the worker also asks for a RESTART checkpoint: it copies the few frames
 * a PASSIVE one left and makes the next writer begin at the start of the file (PASSIVE alone
 * rarely catches a moment between two writes, and the WAL would only grow). The worker's
 * connection waits for no lock (busy_timeout 0): when a writer or an old reader is busy, the
 * RESTART gives up at once and is tried again on the next tick, so writers are never held up.
 */
const RESTART_PAGES = 16384;
/** How often the worker looks at the WAL, in milliseconds. */
const INTERVAL_MS = 20;

const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 0');
db.pragma('wal_autocheckpoint = 0');
const timer = setInterval(() => {
  try {
    const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)');
    if (log > ${RESTART_PAGES}) db.pragma('wal_checkpoint(RESTART)');
  } catch (error) {
    // Another connection is checkpointing, or holds a lock: try again on the next tick.
    if (error.code !== 'SQLITE_BUSY' && error.code !== 'SQLITE_LOCKED') throw error;
  }
}, ${INTERVAL_MS});
parentPort.on('message', () => { clearInterval(timer); db.pragma('wal_checkpoint(PASSIVE)'); db.close(); process.exit(0); });
`;

export function startCheckpointer(db: Db, onError: (error: unknown) => void): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, path: db.name } });
  worker.unref(); // never what keeps the process alive
  db.pragma('wal_autocheckpoint = 0');
  let stopping = false;
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', () => {
      if (!stopping && db.open) db.pragma(`wal_autocheckpoint = ${PAGES}`);
      resolve();
    });
  });
  worker.on('error', onError);
  return {
    async stop() {
      if (!stopping) {
        stopping = true;
        worker.ref(); // until it has made its last checkpoint
        worker.postMessage('stop');
      }
      await exited;
    },
  };
}
