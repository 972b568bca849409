/** Time a turn of the event loop may spend on queued work before it lets I/O in. */
const TURN_BUDGET_MS = 5;

export type Run = <T>(work: () => T | PromiseLike<T>) => Promise<T>;

/**
 * Runs the reads that hold the thread (the SQLite engine's: a page is one statement on the
 * event loop) in the order they were asked for, a few milliseconds of them per turn of the
 * event loop. The store applies it where its engine says reads are synchronous
 * (`Engine.synchronousReads`); writes do not pass through it (they run in the writer thread).
 *
 * Why: Node reads every ready socket in one turn, and every request read there would run its
 * read in that same turn, and Node accepts a new connection only once per turn: under load a
 * new connection would wait behind whole turns of reads (bench/acceptTurns.ts shows it).
 * Through this queue a turn does at most `budgetMs` of work (and always at least one piece),
 * then polls for I/O again: connections are accepted at once, and requests are served first
 * come, first served.
 *
 * `clock` tells the time in milliseconds (a test's own clock makes its turns exact).
 */
export function fairQueue(budgetMs = TURN_BUDGET_MS, clock: () => number = () => performance.now()): Run {
  const queue: (() => void)[] = [];
  let scheduled = false;

  const drain = () => {
    const until = clock() + budgetMs;
    do queue.shift()!();
    while (queue.length > 0 && clock() < until);
    scheduled = queue.length > 0;
    if (scheduled) setImmediate(drain);
  };

  return <T>(work: () => T | PromiseLike<T>) =>
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
