import assert from 'node:assert/strict';
import { describe,it } from 'node:test';
import { fairQueue } from '../../../src/store/requests/fairQueue.js';

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

  // The work "takes" time on a clock of the test's own, so that a busy machine pausing the test
  // cannot change the turns. What the loop runs between two turns shows as an immediate set
  // during the first piece of work: it runs once that turn has ended.
  function clocked(budgetMs: number) {
    let now = 0;
    const log: string[] = [];
    const run = fairQueue(budgetMs, () => now);
    const piece = (name: string, ms: number, first: boolean) =>
      run(() => {
        if (first) setImmediate(() => log.push('the loop'));
        now += ms;
        log.push(name);
      });
    return { log, piece };
  }

  it('lets the event loop run once a turn has spent its budget', async () => {
    const { log, piece } = clocked(50);
    await Promise.all([1, 2, 3, 4].map((n) => piece(`job ${n}`, 30, n === 1)));
    // Jobs 1 and 2 spend 60 ms, past the budget of 50: the turn ends, the loop runs.
    assert.deepEqual(log, ['job 1', 'job 2', 'the loop', 'job 3', 'job 4']);
  });

  it('runs one piece of work per turn when each takes longer than the budget', async () => {
    const { log, piece } = clocked(5);
    await Promise.all([1, 2].map((n) => piece(`job ${n}`, 8, n === 1)));
    assert.deepEqual(log, ['job 1', 'the loop', 'job 2']);
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
