import { startThread } from '../threads/startThread.js';

/**
 * WAL checkpoints off the request path. By default SQLite checkpoints inside the COMMIT that
 * pushes the WAL past 1000 pages, so every few bulk upserts one of them also copies ~4 MB into
 * the database file and syncs it before it answers. In a server, the writer's connection does
 * not checkpoint; a thread with a connection of its own (checkpointThread.ts) runs a PASSIVE
 * checkpoint (it never blocks readers or writers, and returns at once when there is nothing
 * new) four times a second. Other processes on the same file (the CLI, other servers) keep
 * their own checkpointing. Should the thread stop, `onStopped` is told, so that the writer
 * checkpoints by itself again. On a full disk the checkpoints fail (the database file cannot
 * grow): the thread goes on trying, and says so once when they begin failing and once when they
 * succeed again.
 */
export interface Checkpointer {
  stop(): Promise<void>;
}

/** What the checkpoint thread is started with. */
export interface CheckpointerData {
  path: string;
  intervalMs: number;
  restartPages: number;
}

/** What the thread tells: its checkpoints began failing for a full disk, or succeed again. */
export interface CheckpointerReport {
  diskFull: boolean;
}

/** What the store hears from the thread. */
export interface CheckpointerEvents {
  /** The thread failed (it then stops). */
  onError: (error: unknown) => void;
  /** The thread stopped by itself: the writer should checkpoint again. */
  onStopped: () => void;
  /** Checkpoints began failing because the disk is full (`true`), or succeed again (`false`). */
  onDiskFull?: (full: boolean) => void;
}

/**
 * WAL pages after which the thread also asks for a RESTART checkpoint: it copies the few frames
 * a PASSIVE one left and makes the next writer begin at the start of the file (PASSIVE alone
 * rarely catches a moment between two writes, and the WAL would only grow).
 */
const RESTART_PAGES = 16384;
/**
 * How often the thread looks at the WAL, in milliseconds. A page written by several commits
 * between two checkpoints is copied once, so under a stream of writes a longer interval copies
 * less. Readers find the newer pages in the WAL meanwhile, through its index, at about the same
 * cost.
 */
const INTERVAL_MS = 250;

export function startCheckpointer(path: string, events: CheckpointerEvents): Checkpointer {
  const workerData: CheckpointerData = { path, intervalMs: INTERVAL_MS, restartPages: RESTART_PAGES };
  const worker = startThread(import.meta.url, 'checkpointThread', workerData);
  worker.unref(); // never what keeps the process alive
  let stopping = false;
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', () => {
      if (!stopping) events.onStopped();
      resolve();
    });
  });
  worker.on('error', events.onError);
  worker.on('message', (report: CheckpointerReport) => events.onDiskFull?.(report.diskFull));
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
