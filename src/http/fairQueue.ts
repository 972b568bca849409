/** Time a turn of the event loop may spend on queued work before it lets I/O in. */
export const TURN_BUDGET_MS = 5;

export type Run = <T>(work: () => T) => Promise<T>;

/**
 * Runs synchronous work (an operation's database reads and writes) in the order it was asked
 * for, a few milliseconds of it per turn of the event loop.
 *
 * Why: better-sqlite3 is synchronous, so a handler holds the event loop for as long as its
 * statement or transaction runs (about 12 ms for a bulk PUT of 200 items, 1 ms for a page of
 * 2000 records). Node reads every ready socket in one turn, and every request read there would
 * run its handler in that same turn; 60 waiting writers made one turn last most of a second.
 * Node accepts a new connection only once per turn (Node 20, libuv 1.46: a plain node:http
 * server with a 11 ms handler under 64 connections accepted its 44th connection after 5 s), so
 * while writers queued, new clients waited seconds to be read at all, and `bulk-put @ 64` had a
 * p99 of 3 s against a p50 of 0.2 s. Through this queue a turn does at most `budgetMs` of work
 * (and always at least one piece), then polls for I/O again: connections are accepted at once,
 * and requests are served first come, first served.
 *
 * Order: work runs in the order of the calls, so a read asked for after a write has been asked
 * for sees it.
 */
export function fairQueue(budgetMs = TURN_BUDGET_MS): Run {
  const queue: (() => void)[] = [];
  let scheduled = false;

  const drain = () => {
    const until = performance.now() + budgetMs;
    do queue.shift()!();
    while (queue.length > 0 && performance.now() < until);
    scheduled = queue.length > 0;
    if (scheduled) setImmediate(drain);
  };

  return <T>(work: () => T) =>
    new Promise<T>((resolve, reject) => {
      queue.push(() => {
        try {
          resolve(work());
        } catch (error) {
          reject(error as Error);
        }
      });
      if (!scheduled) {
        scheduled = true;
        setImmediate(drain);
      }
    });
}
