import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { mergeInChangeOrder } from '../../../src/store/paging/changePaging.js';
import type { ChangeRow } from '../../../src/store/engine/readSteps.js';

const key = fc.integer({ min: 0, max: 4 });
const row = fc.tuple(key, fc.constantFrom(0 as const, 1 as const), key, key, key, fc.string()) as fc.Arbitrary<ChangeRow>;
const byPosition = (x: ChangeRow, y: ChangeRow) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2] || x[3] - y[3] || x[4] - y[4];

test('merging two lists in change order gives the first n rows of both in change order', () => {
  fc.assert(
    fc.property(fc.array(row), fc.array(row), fc.nat({ max: 12 }), (x, y, n) => {
      const left = [...x].sort(byPosition);
      const right = [...y].sort(byPosition);
      const merged = mergeInChangeOrder(left, right, n);
      assert.equal(merged.length, Math.min(n, x.length + y.length));
      assert.deepEqual(merged.map((r) => r.slice(0, 5)), [...left, ...right].sort(byPosition).slice(0, n).map((r) => r.slice(0, 5)));
    }),
  );
});
