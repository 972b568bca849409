
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The requests of a server, counted by the server in memory its threads share: at index 0 those
 * in progress (admitted, not yet answered), at 1 those admitted so far (wrapping). The store's
 * background work reads them from its own thread, and gives way to the requests.
 */
export type RequestsInProgress = Int32Array;

const IN_PROGRESS = 0;
const ADMITTED = 1;

/** A count of requests, at 0, that threads started with it share. */
export const sharedRequestCount = (): RequestsInProgress => new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));

/** The requests in progress now. */
export const requestsNow = (count: RequestsInProgress): number => Atomics.load(count, IN_PROGRESS);

/** Counts `change` more requests in progress (the server's side: +1 when one is admitted, -1 when answered). */
export function countRequests(count: RequestsInProgress, change: number): void {
  Atomics.add(count, IN_PROGRESS, change);
  if (change > 0) Atomics.add(count, ADMITTED, change);
}

/**
 * A pause to call after each part of background work, with the milliseconds it took: when the
 * server had requests in progress at its end, or admitted any since the last call, a pause as
 * long, so that the work takes at most about half of the time the machine gives it and the
 * requests the rest; none on an idle server (docs/rules.md#table-imports). Whether requests are
 * in progress at one instant is not enough: a thread of low priority runs most when the server's
 * own thread is idle, so it would mostly find none.
 */
export function giveWayToRequests(count: RequestsInProgress): (workedMs: number) => Promise<void> {
  let admittedBefore = Atomics.load(count, ADMITTED);
  return async (workedMs) => {
    const admitted = Atomics.load(count, ADMITTED);
    const busy = requestsNow(count) > 0 || admitted !== admittedBefore;
    admittedBefore = admitted;
    if (busy) await sleep(workedMs);
  };
}
