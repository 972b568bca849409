import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The requests a server has in progress (admitted, not yet answered), counted by the server in
 * memory its threads share (index 0): the store's background work reads it from its own thread,
 * and gives way to them.
 */
export type RequestsInProgress = Int32Array;

/** A count of requests in progress, at 0, that threads started with it share. */
export const sharedRequestCount = (): RequestsInProgress => new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));

/** Counts `change` more requests in progress (the server's side: +1 when one is admitted, -1 when answered). */
export const countRequests = (count: RequestsInProgress, change: number): void => void Atomics.add(count, 0, change);

/**
 * After a part of background work that took `workedMs`: while the server has requests in
 * progress, a pause as long, so that the work takes at most half of the time the machine gives
 * it and the requests the rest; none when the server is idle (docs/rules.md#table-imports).
 */
export async function giveWayToRequests(count: RequestsInProgress, workedMs: number): Promise<void> {
  if (Atomics.load(count, 0) > 0) await sleep(workedMs);
}
