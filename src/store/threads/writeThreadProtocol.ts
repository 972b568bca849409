import type { TenantWrite, WriteOutcome } from '../vocabulary/writeShapes.js';

/** A write handed to a write thread (writeThreadClient.ts, served by writeThreadService.ts). */
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

/** Tells a write thread to close its connection and end. */
export const STOP = 'stop';

/** A write's answer: its outcome, or the error it failed with (its message and the database's code, which the store turns into its own errors). */
export type WriteReply =
  | { id: number; outcome: WriteOutcome<unknown>; error?: undefined }
  | { id: number; error: { message: string; code: string | undefined } };
