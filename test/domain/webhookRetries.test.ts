import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { afterFailure, DEFAULT_RETRIES, retryBoundMs } from '../../src/domain/webhookRetries.js';

describe('the retry schedule of webhook calls', () => {
  const cases: [string, { attempt: number; want: number }][] = [
    ['after the first attempt: up to 5 s', { attempt: 1, want: 5_000 }],
    ['after the second: up to 10 s', { attempt: 2, want: 10_000 }],
    ['after the ninth: up to 1280 s', { attempt: 9, want: 1_280_000 }],
    ['after the tenth: up to 2560 s', { attempt: 10, want: 2_560_000 }],
    ['after the eleventh: the cap, an hour', { attempt: 11, want: 3_600_000 }],
  ];
  for (const [name, { attempt, want }] of cases) test(name, () => assert.equal(retryBoundMs(DEFAULT_RETRIES, attempt), want));

  test('after the last attempt allowed, none follows', () => {
    assert.deepEqual(afterFailure(DEFAULT_RETRIES, 12, 0.5), { retry: false });
    assert.equal(afterFailure(DEFAULT_RETRIES, 11, 0.5).retry, true);
  });

  test('a wait is drawn from 0 up to its bound (full jitter); the bounds grow until the cap, scaled as asked', () => {
    const schedule = fc.record({
      baseMs: fc.integer({ min: 1, max: 60_000 }),
      factor: fc.integer({ min: 1, max: 4 }),
      capMs: fc.integer({ min: 1, max: 7_200_000 }),
      attempts: fc.integer({ min: 1, max: 30 }),
      scale: fc.double({ min: 0.0001, max: 1, noNaN: true }),
    });
    fc.assert(
      fc.property(schedule, fc.integer({ min: 1, max: 40 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (chosen, attempt, random) => {
        const next = afterFailure(chosen, attempt, random);
        if (attempt >= chosen.attempts) return assert.deepEqual(next, { retry: false });
        assert.ok(next.retry);
        const bound = retryBoundMs(chosen, attempt);
        assert.ok(next.waitMs >= 0 && next.waitMs <= bound, `${next.waitMs} within ${bound}`);
        assert.ok(retryBoundMs(chosen, attempt + 1) >= bound, 'the bounds never shrink');
        assert.ok(bound <= chosen.capMs * chosen.scale + 1e-9, 'never past the cap');
      }),
    );
  });
});
