import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRandom } from '../../src/dataset/random.js';

function draws(seed: string, count: number): number[] {
  const random = createRandom(seed);
  return Array.from({ length: count }, () => random.next());
}

describe('seeded random', () => {
  test('the same seed gives the same sequence; another seed another one', () => {
    assert.deepEqual(draws('alpha', 1000), draws('alpha', 1000));
    assert.notDeepEqual(draws('alpha', 1000), draws('alphb', 1000));
    assert.notDeepEqual(draws('', 10), draws(' ', 10));
  });

  test('next is in [0, 1) and spreads evenly over ten buckets', () => {
    const buckets = new Array<number>(10).fill(0);
    for (const value of draws('uniform', 100_000)) {
      assert.ok(value >= 0 && value < 1, String(value));
      buckets[Math.floor(value * 10)]! += 1;
    }
    for (const count of buckets) assert.ok(Math.abs(count - 10_000) < 500, `bucket of ${count}`);
  });

  test('int, between and pick stay in bounds and reach both ends', () => {
    const random = createRandom('bounds');
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i += 1) {
      const value = random.between(-2, 2);
      assert.ok(Number.isInteger(value) && value >= -2 && value <= 2);
      seen.add(value);
      const index = random.int(3);
      assert.ok(index === 0 || index === 1 || index === 2);
      assert.ok(['a', 'b'].includes(random.pick(['a', 'b'])));
    }
    assert.deepEqual([...seen].sort((a, b) => a - b), [-2, -1, 0, 1, 2]);
    assert.throws(() => random.pick([]), RangeError);
  });

  test('weighted follows the weights; chance its probability', () => {
    const random = createRandom('weights');
    const counts = { rare: 0, common: 0, never: 0 };
    let heads = 0;
    for (let i = 0; i < 40_000; i += 1) {
      counts[random.weighted([['rare', 1], ['common', 3], ['never', 0]] as const)] += 1;
      if (random.chance(0.2)) heads += 1;
    }
    assert.equal(counts.never, 0);
    assert.ok(Math.abs(counts.rare - 10_000) < 600, `rare ${counts.rare}`);
    assert.ok(Math.abs(heads - 8_000) < 500, `heads ${heads}`);
  });

  test('normal has mean 0 and deviation 1; logNormal is positive with median exp(mu)', () => {
    const random = createRandom('normal');
    const values = Array.from({ length: 50_000 }, () => random.normal());
    const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
    const deviation = Math.sqrt(values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / values.length);
    assert.ok(Math.abs(mean) < 0.03, `mean ${mean}`);
    assert.ok(Math.abs(deviation - 1) < 0.03, `deviation ${deviation}`);
    const amounts = Array.from({ length: 20_001 }, () => random.logNormal(Math.log(1000), 0.8)).sort((a, b) => a - b);
    assert.ok(amounts[0]! > 0);
    assert.ok(Math.abs(amounts[10_000]! / 1000 - 1) < 0.05, `median ${amounts[10_000]}`);
  });
});
