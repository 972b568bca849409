import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FaultSpecError, parseFaultSpec } from '../../src/http/faultSpec.js';

describe('parseFaultSpec', () => {
  const good: [string, { given: string; want: object }][] = [
    ['the example', { given: 'latency=50-400ms,503=2%,reset=1%,slow=1%', want: { latencyMs: { min: 50, max: 400 }, unavailable: 0.02, reset: 0.01, slow: 0.01 } }],
    ['one latency', { given: 'latency=200ms', want: { latencyMs: { min: 200, max: 200 }, unavailable: 0, reset: 0, slow: 0 } }],
    ['a range with both units', { given: 'latency=5ms-10ms', want: { latencyMs: { min: 5, max: 10 }, unavailable: 0, reset: 0, slow: 0 } }],
    ['fractions and the ends', { given: '503=0.5%,reset=100%,slow=0%', want: { unavailable: 0.005, reset: 1, slow: 0 } }],
    ['a seed', { given: 'seed=4294967295,503=10%', want: { seed: 4294967295, unavailable: 0.1, reset: 0, slow: 0 } }],
  ];
  for (const [name, { given, want }] of good) {
    test(name, () => assert.deepEqual(parseFaultSpec(given), { text: given, ...want }));
  }

  const bad: [string, { given: string; want: RegExp }][] = [
    ['empty', { given: '', want: /^is empty/ }],
    ['an unknown fault', { given: '500=2%', want: /^unknown fault "500": known are latency, 503, reset, slow, seed$/ }],
    ['no value', { given: 'reset', want: /^"reset" is not name=value$/ }],
    ['a trailing comma', { given: 'reset=1%,', want: /^"" is not name=value$/ }],
    ['twice', { given: 'slow=1%,slow=2%', want: /^slow is given twice$/ }],
    ['no percent sign', { given: '503=2', want: /^503=2: must be a percentage/ }],
    ['over 100%', { given: 'reset=101%', want: /^reset=101%: must be a percentage/ }],
    ['negative', { given: 'slow=-1%', want: /^slow=-1%: must be a percentage/ }],
    ['three decimals', { given: 'slow=0.125%', want: /^slow=0.125%: must be a percentage/ }],
    ['latency without unit', { given: 'latency=50-400', want: /^latency=50-400: must be milliseconds/ }],
    ['latency in seconds', { given: 'latency=1s', want: /^latency=1s: must be milliseconds/ }],
    ['latency twice the unit', { given: 'latency=200msms', want: /^latency=200msms: must be milliseconds/ }],
    ['latency backwards', { given: 'latency=400-50ms', want: /^latency=400-50ms: the least time is more than the most$/ }],
    ['latency too long', { given: 'latency=60001ms', want: /^latency=60001ms: at most 60000ms$/ }],
    ['a seed too large', { given: 'seed=4294967296', want: /^seed=4294967296: must be an integer/ }],
    ['a seed not a number', { given: 'seed=abc', want: /^seed=abc: must be an integer/ }],
    ['blanks', { given: '503=2%, reset=1%', want: /^unknown fault " reset"/ }],
  ];
  for (const [name, { given, want }] of bad) {
    test(`refused: ${name}`, () => {
      assert.throws(
        () => parseFaultSpec(given),
        (error: unknown) => error instanceof FaultSpecError && want.test(error.message) && !error.message.includes('\n'),
      );
    });
  }
});
