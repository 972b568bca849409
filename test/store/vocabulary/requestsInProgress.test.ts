import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { countRequests,giveWayToRequests,sharedRequestCount } from '../../../src/store/vocabulary/requestsInProgress.js';

/** Which of `a` and `b` settles first. */
const first = (a: Promise<unknown>, b: Promise<unknown>) => Promise.race([a.then(() => 'a'), b.then(() => 'b')]);

test('background work gives way while the server has requests in progress, or had since its last part, and only then', async () => {
  const count = sharedRequestCount();
  const giveWay = giveWayToRequests(count);
  // None in progress, none since: no pause at all, not even a timer's turn.
  assert.equal(await first(giveWay(200), sleep(0)), 'a');
  countRequests(count, +1);
  // One in progress: a pause as long as the work took (it outlasts a timer of a quarter of it).
  assert.equal(await first(giveWay(200), sleep(50)), 'b');
  countRequests(count, -1);
  countRequests(count, +1);
  countRequests(count, -1);
  // None in progress, but one came and went since the last part: a pause again.
  assert.equal(await first(giveWay(200), sleep(50)), 'b');
  // Nothing since: none.
  assert.equal(await first(giveWay(200), sleep(0)), 'a');
});

test('the count is shared with the threads it is given to', async () => {
  const count = sharedRequestCount();
  const { Worker } = await import('node:worker_threads');
  // The thread reads the count when asked, after the server counted: it sees the server's count, not a copy of it.
  const script = 'const { workerData, parentPort } = require("node:worker_threads"); parentPort.once("message", () => parentPort.postMessage(Atomics.load(workerData, 0)));';
  const worker = new Worker(script, { eval: true, workerData: count });
  countRequests(count, +3);
  worker.postMessage('read');
  const seen = await new Promise<number>((resolve) => worker.once('message', resolve));
  await worker.terminate();
  assert.equal(seen, 3);
});
