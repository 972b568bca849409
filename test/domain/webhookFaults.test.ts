import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { createRandom } from '../../src/dataset/random.js';
import { drawFaults, faultMark, faultsOfStored, NO_FAULTS, storedFaults, type WebhookFaults } from '../../src/domain/webhookFaults.js';
import { heldCalls } from '../../src/delivery/heldCalls.js';

const faults = fc.record({
  // `+ 0`: a -0 is stored as 0.
  duplicate: fc.double({ min: 0, max: 1, noNaN: true }).map((p) => p + 0),
  reorder: fc.double({ min: 0, max: 1, noNaN: true }).map((p) => p + 0),
  delayMs: fc.integer({ min: 0, max: 10_000 }),
});

describe('the faults of a webhook endpoint', () => {
  const marks: [string, { given: { holdBack: boolean; delayMs: number }; want: string | null }][] = [
    ['none', { given: { holdBack: false, delayMs: 0 }, want: null }],
    ['held back', { given: { holdBack: true, delayMs: 0 }, want: 'reorder' }],
    ['delayed', { given: { holdBack: false, delayMs: 500 }, want: 'delay=500ms' }],
    ['both', { given: { holdBack: true, delayMs: 20 }, want: 'reorder, delay=20ms' }],
  ];
  for (const [name, { given, want }] of marks) test(`an attempt's mark: ${name}`, () => assert.equal(faultMark(given), want));

  test('an endpoint without faults draws nothing from the random source', () => {
    let draws = 0;
    assert.deepEqual(drawFaults(NO_FAULTS, () => (draws += 1, 0)), { duplicate: false, holdBack: false, delayMs: 0 });
    assert.equal(draws, 0);
  });

  test('probabilities 0 and 1 are never and always; the delay is every call\'s', () => {
    fc.assert(
      fc.property(fc.constantFrom(0, 1), fc.constantFrom(0, 1), fc.integer({ min: 0, max: 10_000 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (duplicate, reorder, delayMs, random) => {
        const draw = drawFaults({ duplicate, reorder, delayMs }, () => random);
        assert.deepEqual(draw, { duplicate: duplicate === 1, holdBack: reorder === 1, delayMs });
      }),
    );
  });

  test('a seeded source draws the same faults run after run, about as often as asked', () => {
    const asked: WebhookFaults = { duplicate: 0.2, reorder: 0.1, delayMs: 0 };
    const run = (seed: string) => {
      const random = createRandom(seed);
      return Array.from({ length: 10_000 }, () => drawFaults(asked, () => random.next()));
    };
    assert.deepEqual(run('42'), run('42'));
    const draws = run('42');
    const share = (pick: (draw: (typeof draws)[number]) => boolean) => draws.filter(pick).length / draws.length;
    assert.ok(Math.abs(share((draw) => draw.duplicate) - 0.2) < 0.02, `duplicates: ${share((draw) => draw.duplicate)}`);
    assert.ok(Math.abs(share((draw) => draw.holdBack) - 0.1) < 0.02, `held back: ${share((draw) => draw.holdBack)}`);
  });

  test('faults stored and read back are the same; none is stored as null', () => {
    assert.equal(storedFaults(NO_FAULTS), null);
    assert.deepEqual(faultsOfStored(null), NO_FAULTS);
    fc.assert(fc.property(faults, (given) => assert.deepEqual(faultsOfStored(storedFaults(given)), { ...given })));
  });

  test('held calls: one per endpoint; released by a later call of its endpoint, or after the hold', async () => {
    const held = heldCalls(50);
    const first = held.hold('whe_a');
    assert.ok(first instanceof Promise);
    assert.equal(held.hold('whe_a'), false, 'a second call of the endpoint is not held');
    let released = false;
    void first.then(() => (released = true));
    held.release('whe_b');
    await Promise.resolve();
    assert.equal(released, false, 'another endpoint\'s call releases nothing');
    held.release('whe_a');
    await first;
    const timed = held.hold('whe_a');
    assert.ok(timed instanceof Promise, 'once released, a call of the endpoint may be held again');
    await timed;
  });
});
