import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fairQueue } from '../../src/store/fairQueue.js';

/** Holds the thread for `ms`, as a synchronous SQLite statement does. */
function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('fairQueue', () => {
  it('runs work in the order it was asked for, and gives each caller its result', async () => {
    const run = fairQueue();
    const ran: number[] = [];
    const results = await Promise.all([3, 1, 4, 1, 5].map((n, i) => run(() => (ran.push(i), n * 10))));
    assert.deepEqual(ran, [0, 1, 2, 3, 4]);
    assert.deepEqual(results, [30, 10, 40, 10, 50]);
  });

  it('rejects the caller whose work throws, and goes on with the rest', async () => {
    const run = fairQueue();
    const outcomes = await Promise.allSettled([
      run(() => 1),
      run(() => {
        throw new Error('broken');
      }),
      run(() => 3),
    ]);
    assert.deepEqual(
      outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : (outcome.reason as Error).message)),
      [1, 'broken', 3],
    );
  });

  it('lets the event loop poll for I/O once a turn has spent its budget', async () => {
    // Wide margins, so that a busy machine pausing the test for a while does not change the turns.
    const run = fairQueue(50);
    const log: string[] = [];
    // Set while the first job runs, due 1 ms later: it runs at the first poll of the loop after that.
    const startTimer = () => setTimeout(() => log.push('timer'), 1);
    const jobs = [1, 2, 3, 4].map((n) => run(() => (n === 1 && startTimer(), busyFor(30), log.push(`job ${n}`))));
    await Promise.all(jobs);
    // Jobs 1 and 2 spend 60 ms, past the budget of 50: the turn ends, the due timer runs.
    assert.deepEqual(log, ['job 1', 'job 2', 'timer', 'job 3', 'job 4']);
  });

  it('runs one piece of work per turn when each takes longer than the budget', async () => {
    const run = fairQueue(5);
    const log: string[] = [];
    const startTimer = () => setTimeout(() => log.push('timer'), 1);
    await Promise.all([1, 2].map((n) => run(() => (n === 1 && startTimer(), busyFor(8), log.push(`job ${n}`)))));
    assert.deepEqual(log, ['job 1', 'timer', 'job 2']);
  });

  it('runs small pieces of work together, in one turn', async () => {
    const run = fairQueue(5);
    const log: string[] = [];
    // A microtask runs when the turn's callback returns: after every piece that shares the turn.
    const first = run(() => queueMicrotask(() => log.push('turn ended')));
    await Promise.all([first, ...[1, 2, 3].map((n) => run(() => log.push(`job ${n}`)))]);
    assert.deepEqual(log, ['job 1', 'job 2', 'job 3', 'turn ended']);
  });
});
