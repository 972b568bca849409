import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { shareOut } from './testShards.js';

const files = fc.uniqueArray(fc.stringMatching(/^test\/[a-z]{1,8}\.test\.ts$/), { maxLength: 30 });

test('every file goes to exactly one runner, in the order given, and no runner is left empty', () => {
  fc.assert(
    fc.property(files, fc.integer({ min: 1, max: 6 }), fc.func(fc.option(fc.double({ min: 0, max: 60, noNaN: true }))), (given, jobs, timeOf) => {
      const seconds = new Map(given.flatMap((file) => (timeOf(file) === null ? [] : [[file, timeOf(file)!] as const])));
      const shares = shareOut(given, jobs, seconds);
      assert.deepEqual(shares.flat().sort(), [...given].sort());
      assert.equal(shares.length, Math.min(jobs, given.length));
      for (const share of shares) assert.deepEqual(share, given.filter((file) => share.includes(file)));
    }),
  );
});

test('known times are shared longest first to the runner with the least so far', () => {
  const seconds = new Map([['a', 40], ['b', 10], ['c', 25], ['d', 20], ['e', 5]]);
  // 40 -> 1; 25 -> 2; 20 -> 2 (45); 10 -> 1 (50); 5 -> 2 (50)
  assert.deepEqual(shareOut(['a', 'b', 'c', 'd', 'e'], 2, seconds), [['a', 'b'], ['c', 'd', 'e']]);
});

test('files with no time yet are dealt out in turn', () => {
  assert.deepEqual(shareOut(['a', 'b', 'c', 'd', 'e'], 2, new Map()), [['a', 'c', 'e'], ['b', 'd']]);
});
