import type { Worker } from 'node:worker_threads';
import { StoreUnavailable } from '../vocabulary/storeErrors.js';
import type { StoreLog } from '../vocabulary/storeLog.js';
import type { TenantWrite, WriteOutcome, WrittenBy } from '../vocabulary/writeShapes.js';
import { startThread, stopThread } from './startThread.js';
import { STOP, wallClockMs, type WriteReply, type WriteRequest } from './writeThreadProtocol.js';

export interface WriteThread {
  write<W extends TenantWrite>(tenantId: number, write: W): Promise<WriteOutcome<WrittenBy<W>>>;
  /** Sends the thread a message of its own kind, if it runs. */
  post(message: string): void;
  /** Lets the writes in progress finish, then ends the thread. */
  stop(): Promise<void>;
}

export interface WriteThreadOptions {
  /** The thread's module: `name` beside `base` (see startThread.ts). */
  base: string;
  name: string;
  /** How the log calls the thread. */
  title: string;
  /** The data of each thread started. */
  data(): object;
  /** How long a write waits for another writer's lock, from the moment it is handed over. */
  busyTimeoutMs: number;
  log: StoreLog;
}

interface Pending {
  resolve(outcome: WriteOutcome<unknown>): void;
  reject(error: Error): void;
  answer: Promise<WriteOutcome<unknown>>;
}

/**
 * The main-thread side of a thread that runs writes with a connection of its own (its module
 * calls writeThreadService.ts's `serveWrites`): each write is a message, its answer a promise. The
 * thread is started on the first write. Should it die (a fault of the thread, never of a
 * request), every write it held is refused with `StoreUnavailable` (503: its transaction was
 * rolled back with the thread's connection, so nothing is partly written), the death is logged,
 * and the next write starts a new thread.
 */
export function startWriteThread(options: WriteThreadOptions): WriteThread {
  const { title, log } = options;
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let worker: Worker | undefined;
  let stopped: Promise<void> | undefined;

  const start = (): Worker => {
    const thread = startThread(options.base, options.name, options.data());
    thread.unref(); // held by the writes waiting on it, never by itself
    thread.on('message', (reply: WriteReply) => {
      const waiting = pending.get(reply.id);
      pending.delete(reply.id);
      if (pending.size === 0) thread.unref();
      if (reply.error === undefined) waiting?.resolve(reply.outcome);
      else waiting?.reject(writeError(reply.error));
    });
    thread.on('error', (error) => log.error({ err: error }, `the ${title} failed`));
    thread.on('exit', (code) => {
      if (worker === thread) worker = undefined;
      if (stopped) return;
      log.error({ exitCode: code, writesLost: pending.size }, `the ${title} stopped; the next write starts a new one`);
      for (const waiting of pending.values()) {
        waiting.reject(new StoreUnavailable('The writer stopped before this write was committed; nothing was written. Try again.'));
      }
      pending.clear();
    });
    return thread;
  };

  return {
    write<W extends TenantWrite>(tenantId: number, write: W) {
      if (stopped) return Promise.reject(new StoreUnavailable('The server is stopping.'));
      worker ??= start();
      const id = (nextId += 1);
      const request: WriteRequest = { id, tenantId, write, deadline: Date.now() + options.busyTimeoutMs, arrivedAt: wallClockMs() };
      let settle!: Pick<Pending, 'resolve' | 'reject'>;
      const answer = new Promise<WriteOutcome<unknown>>((resolve, reject) => (settle = { resolve, reject }));
      pending.set(id, { ...settle, answer });
      worker.ref();
      worker.postMessage(request);
      return answer as Promise<WriteOutcome<WrittenBy<W>>>;
    },
    post: (message) => worker?.postMessage(message),
    stop() {
      stopped ??= (async () => {
        while (pending.size > 0) await Promise.allSettled([...pending.values()].map((waiting) => waiting.answer));
        await stopThread(worker, STOP);
      })();
      return stopped;
    },
  };
}

/** A write that failed in the thread, with the database's code (which the store turns into its own errors). */
function writeError({ message, code }: { message: string; code: string | undefined }): Error {
  return Object.assign(new Error(message), { code });
}
