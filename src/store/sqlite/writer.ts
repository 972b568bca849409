import type { Worker } from 'node:worker_threads';
import { StoreUnavailable, type StoreLog } from '../store.js';
import type { TenantWrite, WriteOutcome, WrittenBy } from '../tenantWrites.js';
import { startThread } from './startThread.js';
import { CHECKPOINT_BY_ITSELF, STOP, wallClockMs, type WriteReply, type WriteRequest, type WriterData } from './writerProtocol.js';

export interface Writer {
  write<W extends TenantWrite>(tenantId: number, write: W): Promise<WriteOutcome<WrittenBy<W>>>;
  /** The writer's commits checkpoint the WAL again (the checkpoint thread stopped). */
  checkpointByItself(): void;
  /** Lets the writes in progress finish, then ends the thread. */
  stop(): Promise<void>;
}

interface Pending {
  resolve(outcome: WriteOutcome<unknown>): void;
  reject(error: Error): void;
  answer: Promise<WriteOutcome<unknown>>;
}

/**
 * The main-thread side of the writer thread (writerThread.ts): each write is a message, its
 * answer a promise. The thread is started on the first write. Should it die (a fault of the
 * thread, never of a request), every write it held is refused with `StoreUnavailable` (503:
 * its transaction was rolled back with the thread's connection, so nothing is partly written),
 * the death is logged, and the next write starts a new thread.
 */
export function startWriter(data: WriterData, log: StoreLog): Writer {
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let worker: Worker | undefined;
  let stopped: Promise<void> | undefined;
  let faultsLeft = data.exitInFirstTransaction === true;
  let checkpoints = data.checkpoints;

  const start = (): Worker => {
    const thread = startThread(import.meta.url, 'writerThread', { ...data, checkpoints, exitInFirstTransaction: faultsLeft } satisfies WriterData);
    faultsLeft = false;
    thread.unref(); // held by the writes waiting on it, never by itself
    thread.on('message', (reply: WriteReply) => {
      const waiting = pending.get(reply.id);
      pending.delete(reply.id);
      if (pending.size === 0) thread.unref();
      if (reply.error === undefined) waiting?.resolve(reply.outcome);
      else waiting?.reject(writeError(reply.error));
    });
    thread.on('error', (error) => log.error({ err: error }, 'the writer thread failed'));
    thread.on('exit', (code) => {
      if (worker === thread) worker = undefined;
      if (stopped) return;
      log.error({ exitCode: code, writesLost: pending.size }, 'the writer thread stopped; the next write starts a new one');
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
      const request: WriteRequest = { id, tenantId, write, deadline: Date.now() + data.busyTimeoutMs, arrivedAt: wallClockMs() };
      let settle!: Pick<Pending, 'resolve' | 'reject'>;
      const answer = new Promise<WriteOutcome<unknown>>((resolve, reject) => (settle = { resolve, reject }));
      pending.set(id, { ...settle, answer });
      worker.ref();
      worker.postMessage(request);
      return answer as Promise<WriteOutcome<WrittenBy<W>>>;
    },
    checkpointByItself() {
      checkpoints = true;
      worker?.postMessage(CHECKPOINT_BY_ITSELF);
    },
    stop() {
      stopped ??= (async () => {
        while (pending.size > 0) await Promise.allSettled([...pending.values()].map((waiting) => waiting.answer));
        const thread = worker;
        if (!thread) return;
        const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
        thread.ref(); // until it has closed its connection
        thread.postMessage(STOP);
        await exited;
      })();
      return stopped;
    },
  };
}

/** A write that failed in the thread, with SQLite's code (which the store turns into its own errors). */
function writeError({ message, code }: { message: string; code: string | undefined }): Error {
  return Object.assign(new Error(message), { code });
}
