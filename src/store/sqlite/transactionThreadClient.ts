import type { Worker } from 'node:worker_threads';
import type { WriteSteps } from '../engine/transactionSteps.js';
import { startThread, stopThread } from '../threads/startThread.js';
import { STOP } from '../threads/writeThreadProtocol.js';
import { StoreUnavailable } from '../vocabulary/storeErrors.js';
import type { StoreLog } from '../vocabulary/storeLog.js';
import { withBuffers, type StepPath, type TransactionMessage, type TransactionReply, type TransactionThreadData } from './transactionProtocol.js';
import { CHECKPOINT_BY_ITSELF } from './writerProtocol.js';

export interface TransactionThread {
  /** `work` in one IMMEDIATE transaction of the thread: committed when it returns, rolled back when it throws. */
  inWriteTransaction<T>(work: (steps: WriteSteps) => Promise<T>): Promise<T>;
  /** The thread's commits checkpoint the WAL again (the checkpoint thread stopped). */
  checkpointByItself(): void;
  /** Lets the transactions begun or waiting finish, then ends the thread. */
  stop(): Promise<void>;
}

/** The steps that return steps (reached in the thread, not called there one by one). */
const STEPS_OF_STEPS: ReadonlySet<string> = new Set<keyof WriteSteps>(['loadSteps', 'statusChangeSteps', 'webhookSteps', 'deliverySteps']);

/**
 * The main-thread side of transactionThread.ts, started with the first transaction and again
 * after a death. Transactions take turns, each waiting for its turn and then for the database's
 * write lock until `busyTimeoutMs` after it was asked for. The work runs here, each of its steps
 * a message answered by the thread. Should the thread die, the transaction in progress is
 * refused with `StoreUnavailable` (503: its transaction died with the thread's connection, so
 * nothing is partly written), the death is logged, and the next transaction starts a new thread.
 */
export function startTransactionThread(data: TransactionThreadData, log: StoreLog): TransactionThread {
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let worker: Worker | undefined;
  let nextId = 0;
  let turn: Promise<unknown> = Promise.resolve();
  let checkpoints = data.checkpoints;
  let faultsLeft = data.exitAtFirstCommit === true;
  let stopped: Promise<void> | undefined;

  const start = (): Worker => {
    const thread = startThread(import.meta.url, 'transactionThread', { ...data, checkpoints, exitAtFirstCommit: faultsLeft } satisfies TransactionThreadData);
    faultsLeft = false;
    thread.unref(); // held by a transaction in progress, never by itself
    thread.on('message', (reply: TransactionReply) => {
      const waiting = pending.get(reply.id);
      pending.delete(reply.id);
      if (reply.error === undefined) waiting?.resolve(withBuffers(reply.value));
      else waiting?.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
    });
    thread.on('error', (error) => log.error({ err: error }, 'the transaction thread failed'));
    thread.on('exit', (code) => {
      if (worker === thread) worker = undefined;
      if (!stopped) log.error({ exitCode: code }, 'the transaction thread stopped; the next transaction starts a new one');
      for (const waiting of pending.values()) waiting.reject(gone());
      pending.clear();
    });
    return thread;
  };

  const send = (thread: Worker, message: DistributiveOmit<TransactionMessage, 'id'>): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (worker !== thread) return reject(gone());
      const id = (nextId += 1);
      pending.set(id, { resolve, reject });
      thread.postMessage({ ...message, id });
    });

  const transaction = async <T>(work: (steps: WriteSteps) => Promise<T>, deadline: number): Promise<T> => {
    const thread = (worker ??= start());
    thread.ref();
    try {
      await send(thread, { op: 'begin', deadline });
      try {
        const result = await work(remoteSteps((path, name, args) => send(thread, { op: 'step', path, name, args }), []));
        await send(thread, { op: 'commit' });
        return result;
      } catch (error) {
        await send(thread, { op: 'rollback' }).catch(() => {});
        throw error;
      }
    } finally {
      thread.unref();
    }
  };

  return {
    inWriteTransaction(work) {
      if (stopped) return Promise.reject(new StoreUnavailable('The server is stopping.'));
      const deadline = Date.now() + data.busyTimeoutMs;
      const mine = turn.then(() => transaction(work, deadline));
      turn = mine.catch(() => {});
      return mine;
    },
    checkpointByItself() {
      checkpoints = true;
      worker?.postMessage(CHECKPOINT_BY_ITSELF);
    },
    stop() {
      stopped ??= (async () => {
        await turn;
        await stopThread(worker, STOP);
      })();
      return stopped;
    },
  };
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Steps whose every call is `call` with the step's path, name and arguments. */
function remoteSteps(call: (path: StepPath, name: string, args: unknown[]) => Promise<unknown>, path: StepPath): WriteSteps {
  const handler: ProxyHandler<object> = {
    get(_target, name) {
      // Not a promise: `await steps` gives the steps.
      if (typeof name !== 'string' || name === 'then') return undefined;
      if (STEPS_OF_STEPS.has(name)) return (...args: unknown[]) => remoteSteps(call, [...path, [name, args]]);
      return (...args: unknown[]) => call(path, name, args);
    },
  };
  return new Proxy({}, handler) as WriteSteps;
}

function gone(): StoreUnavailable {
  return new StoreUnavailable('The database thread stopped before this change was committed; nothing was written. Try again.');
}
