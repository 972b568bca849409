/**
 * The thread of a server's write transactions that span awaits (the administration API's copies,
 * resets, deletions and loads of sandboxes, new keys, leases), with a connection of its own:
 * each step of a transaction (../engine/transactionSteps.ts) is a message, run here, so that the
 * statements of a copy of 10,000 records hold up this thread only while the event loop goes on
 * serving reads. transactionThreadClient.ts sends one transaction at a time, so the messages of
 * one transaction never meet another's; like the writer thread, the thread runs at a lower
 * priority than the event loop.
 */
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { WRITE_THREAD_NICE } from '../threads/writeThreadService.js';
import { STOP } from '../threads/writeThreadProtocol.js';
import type { WriteSteps } from '../engine/transactionSteps.js';
import { openDatabase } from './db.js';
import { withBuffers, type StepPath, type TransactionMessage, type TransactionReply, type TransactionThreadData } from './transactionProtocol.js';
import { writeSteps } from './writeSteps.js';
import { CHECKPOINT_BY_ITSELF } from './writerProtocol.js';

/** SQLite's own threshold (pages in the WAL) for a commit that checkpoints. */
const AUTOCHECKPOINT_PAGES = 1000;

type Steps = Record<string, (...args: unknown[]) => unknown>;

const { path, busyTimeoutMs, checkpoints, exitAtFirstCommit } = workerData as TransactionThreadData;
const db = openDatabase(path, { busyTimeoutMs, role: 'writer' });
if (!checkpoints) db.pragma('wal_autocheckpoint = 0');
const steps: WriteSteps = writeSteps(db);
/** The steps reached through other steps in the transaction (its `loadSteps(tenantId)`), made once each. */
const reached = new Map<string, Steps>();
let busyTimeout = busyTimeoutMs;

setPriority(WRITE_THREAD_NICE);
let queue = Promise.resolve();
parentPort!.on('message', (message: TransactionMessage | string) => {
  queue = queue.then(() => handle(message));
});

async function handle(message: TransactionMessage | string): Promise<void> {
  if (message === STOP) {
    db.close();
    process.exit(0);
  }
  if (message === CHECKPOINT_BY_ITSELF) db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  if (typeof message === 'string') return;
  let reply: TransactionReply;
  try {
    reply = { id: message.id, value: await run(message) };
  } catch (error) {
    const { message: text, code } = error as { message?: unknown; code?: unknown };
    reply = { id: message.id, error: { message: String(text), code: typeof code === 'string' ? code : undefined } };
  }
  parentPort!.postMessage(reply);
}

async function run(message: TransactionMessage): Promise<unknown> {
  switch (message.op) {
    case 'begin': {
      // The transaction waits for another writer's lock until its own deadline (its wait for its turn counts).
      const remaining = Math.max(0, Math.round(message.deadline - Date.now()));
      if (remaining !== busyTimeout) db.pragma(`busy_timeout = ${(busyTimeout = remaining)}`);
      reached.clear();
      db.exec('BEGIN IMMEDIATE');
      return undefined;
    }
    case 'step':
      return stepsAt(message.path)[message.name]!(...message.args.map(withBuffers));
    case 'commit':
      if (exitAtFirstCommit) process.exit(70);
      db.exec('COMMIT');
      return undefined;
    case 'rollback':
      if (db.inTransaction) db.exec('ROLLBACK');
      return undefined;
  }
}

function stepsAt(path: StepPath): Steps {
  let at = steps as unknown as Steps;
  for (let i = 0; i < path.length; i += 1) {
    const key = JSON.stringify(path.slice(0, i + 1));
    let next = reached.get(key);
    if (!next) reached.set(key, (next = at[path[i]![0]]!(...path[i]![1]) as Steps));
    at = next;
  }
  return at;
}
