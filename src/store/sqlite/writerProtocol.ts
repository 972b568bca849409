import type { TenantWrite, WriteOutcome } from '../tenantWrites.js';

/** What the writer thread is started with (see writerThread.ts). */
export interface WriterData {
  path: string;
  busyTimeoutMs: number;
  /** Whether the writer's commits checkpoint the WAL (SQLite's default), or a checkpoint thread does. */
  checkpoints: boolean;
  /** For tests of a writer that dies: the thread exits inside its first transaction, after its writes. */
  exitInFirstTransaction?: boolean;
}

export interface WriteRequest {
  id: number;
  tenantId: number;
  write: TenantWrite;
  /** `Date.now()` after which the request stops waiting for another writer's lock. */
  deadline: number;
  /** When the write reached the store: `performance.timeOrigin + performance.now()` (comparable across threads). */
  arrivedAt: number;
}

/** Milliseconds since the epoch, to the microsecond, comparable between threads (unlike `performance.now()`). */
export function wallClockMs(): number {
  return performance.timeOrigin + performance.now();
}

/** Tells the writer to checkpoint by itself again (the checkpoint thread stopped). */
export const CHECKPOINT_BY_ITSELF = 'checkpoint by itself';
/** Tells the writer to close its connection and end. */
export const STOP = 'stop';

export type WriterMessage = WriteRequest | typeof CHECKPOINT_BY_ITSELF | typeof STOP;

export type WriteReply =
  | { id: number; outcome: WriteOutcome<unknown>; error?: undefined }
  | { id: number; error: { message: string; code: string | undefined } };
