/**
 * The WAL checkpoints of a server process, in a thread of their own (started by
 * checkpointer.ts): a PASSIVE checkpoint four times a second, a RESTART one when the WAL has
 * grown long. This connection waits for no lock (busy_timeout 0): when a writer or an old
 * reader is busy, the checkpoint gives up at once and is tried again on the next tick, so
 * writers are never held up.
 */
import Database from 'better-sqlite3';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { CheckpointerData, CheckpointerReport } from './checkpointer.js';

const { path, intervalMs, restartPages } = workerData as CheckpointerData;
// Behind the event loop and the writer when the CPU is contended (see WRITER_NICE in writerThread.ts).
setPriority(10);
const db = new Database(path);
db.pragma('busy_timeout = 0');
db.pragma('wal_autocheckpoint = 0');

/** Whether the last checkpoint failed for a full disk (told to the main thread once per spell). */
let diskFull = false;
const tellDiskFull = (full: boolean) => {
  if (full !== diskFull) parentPort!.postMessage({ diskFull: (diskFull = full) } satisfies CheckpointerReport);
};

const timer = setInterval(() => {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
    if (result && result.log > restartPages) db.pragma('wal_checkpoint(RESTART)');
    tellDiskFull(false);
  } catch (error) {
    // Another connection is checkpointing, or holds a lock: try again on the next tick. The
    // disk is full: the WAL keeps every commit meanwhile, and is copied once space returns.
    const { code } = error as { code?: string };
    if (code === 'SQLITE_FULL') tellDiskFull(true);
    else if (code !== 'SQLITE_BUSY' && code !== 'SQLITE_LOCKED') throw error;
  }
}, intervalMs);

parentPort!.on('message', () => {
  clearInterval(timer);
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or full: the WAL stays valid, and the store's close tries again (foldWal).
  }
  db.close();
  process.exit(0);
});
