import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bucketIdOf, KeyBuckets, parseRatePolicy, rateLimitHeaders } from '../../src/http/rateLimit.js';

describe('rate-limit buckets', () => {
  test('N or N/BURST', () => {
    const cases: [string, ReturnType<typeof parseRatePolicy>][] = [
      ['10', { perSecond: 10, burst: 10 }],
      ['10/25', { perSecond: 10, burst: 25 }],
      ['1/1', { perSecond: 1, burst: 1 }],
      ['0', undefined],
      ['3/0', undefined],
      ['1.5', undefined],
      ['/3', undefined],
      ['3/', undefined],
      ['-2', undefined],
      ['12345678', undefined],
    ];
    for (const [given, want] of cases) assert.deepEqual(parseRatePolicy(given), want, given);
  });

  test('a token given back (a key its read found gone) is there for the next request, never past the burst', (t) => {
    const buckets = new KeyBuckets({ perSecond: 0.001, burst: 2 });
    t.after(() => buckets.close());
    assert.deepEqual([buckets.take('a').allowed, buckets.take('a').allowed, buckets.take('a').allowed], [true, true, false]);
    buckets.giveBack('a');
    assert.equal(buckets.take('a').allowed, true, 'the token given back');
    assert.equal(buckets.take('a').allowed, false);
    buckets.giveBack('a');
    buckets.giveBack('a');
    buckets.giveBack('a');
    assert.deepEqual([buckets.take('a').allowed, buckets.take('a').allowed, buckets.take('a').allowed], [true, true, false], 'at most the burst');
    buckets.giveBack('unknown');
    assert.equal(buckets.size, 1, 'no bucket made for a key that took nothing');
  });

  test('a new key has its whole burst; the refused request is told when one comes back', () => {
    const buckets = new KeyBuckets({ perSecond: 2, burst: 3 });
    const decisions = Array.from({ length: 4 }, () => buckets.take('a'));
    assert.deepEqual(decisions.map((d) => d.allowed), [true, true, true, false]);
    assert.deepEqual(decisions.map((d) => d.remaining), [2, 1, 0, 0]);
    const refused = decisions[3]!;
    assert.equal(refused.retryAfterSeconds, 1, 'half a second, rounded up to whole seconds');
    assert.equal(refused.resetSeconds, 2, 'three tokens at two a second');
    assert.deepEqual(rateLimitHeaders({ perSecond: 2, burst: 3 }, refused), { 'RateLimit-Policy': '"per-key";q=3;w=2', RateLimit: '"per-key";r=0;t=2' });
    assert.equal(buckets.take('b').allowed, true, 'another key, another bucket');
    buckets.close();
  });

  test('buckets that have filled up again are forgotten; others are kept', async () => {
    const buckets = new KeyBuckets({ perSecond: 1_000_000, burst: 2 });
    buckets.take('fast');
    const slow = new KeyBuckets({ perSecond: 1, burst: 2 });
    slow.take('slow');
    await new Promise((resolve) => setTimeout(resolve, 5));
    buckets.forgetFull();
    slow.forgetFull();
    assert.equal(buckets.size, 0, 'a full bucket is the same as none');
    assert.equal(slow.size, 1, 'a bucket still filling keeps its count');
    buckets.close();
    slow.close();
  });

  test('a key is held only as a digest', () => {
    const key = 'cdk_0123456789ab_' + 'x'.repeat(43);
    assert.ok(!bucketIdOf(key).includes('0123456789ab'));
    assert.equal(bucketIdOf(key), bucketIdOf(key));
    assert.notEqual(bucketIdOf(key), bucketIdOf(key + 'y'));
  });
});
