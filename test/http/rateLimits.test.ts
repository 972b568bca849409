import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { localRateLimiter } from '../../src/http/rateLimit.js';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { startTestServer, type Exchange } from '../support/harness.js';

/**
 * `serve --rate-limit N/BURST` on a real server: a request every four seconds per key, four at
 * once (slow, so that a loaded machine that pauses the test for a second or two does not give a
 * token back where the test expects none). A burst is timed: one that took longer than four
 * seconds may have been granted one more success per four seconds it took.
 */
const POLICY = { perSecond: 0.25, burst: 4 };

async function burst(call: () => Promise<Exchange>, size: number): Promise<{ answers: Exchange[]; seconds: number }> {
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: size }, call));
  return { answers, seconds: (performance.now() - started) / 1000 };
}

const statusesOf = (answers: Exchange[]) => answers.map((answer) => answer.status);
const count = (answers: Exchange[], status: number) => answers.filter((answer) => answer.status === status).length;

describe('rate limits per key', () => {
  test('a burst gets BURST successes, then 429 with Retry-After and the RateLimit fields; after the wait, requests pass again', async (t) => {
    let fixture!: Fixture;
    const server = await startTestServer(t, { rateLimiter: localRateLimiter(POLICY), corsOrigins: ['*'] }, async (store) => {
      fixture = await buildFixture(store, { tenant: 'acme', records: 3 });
    });
    const { answers, seconds } = await burst(() => server.call('GET', '/v1/reporting?limit=1', { key: fixture.key, headers: { Origin: 'https://app.example.com' } }), 10);
    const granted = count(answers, 200);
    assert.ok(granted >= POLICY.burst && granted <= POLICY.burst + Math.floor(seconds * POLICY.perSecond), `${granted} of 10 served in ${seconds} s: ${statusesOf(answers).join(',')}`);
    assert.equal(count(answers, 429), 10 - granted, `only 200 or 429: ${statusesOf(answers).join(',')}`);

    const refused = answers.find((answer) => answer.status === 429)!;
    assert.equal(refused.headers.get('Content-Type'), 'application/problem+json');
    assert.equal(refused.body.type, 'urn:compdata:problem:too-many-requests');
    assert.match(refused.headers.get('Retry-After')!, /^[1-4]$/, 'a token comes back within four seconds');
    assert.equal(refused.headers.get('RateLimit-Policy'), '"per-key";q=4;w=16');
    const full = /^"per-key";r=0;t=(\d+)$/.exec(refused.headers.get('RateLimit')!);
    assert.ok(full && Number(full[1]) >= 12 && Number(full[1]) <= 16, `nothing left; full again in about sixteen seconds: ${refused.headers.get('RateLimit')}`);
    const exposed = refused.headers.get('Access-Control-Expose-Headers')!.split(',');
    for (const field of ['Retry-After', 'RateLimit-Policy', 'RateLimit']) assert.ok(exposed.includes(field), `a browser application may read ${field}`);

    // Refused on every keyed operation, a PUT's body unread; a key-less request is not metered.
    const put = await server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data: [] } });
    assert.equal(put.status, 429);
    assert.equal((await server.call('GET', '/v1/tables/deals/records', { key: fixture.key })).status, 429);
    assert.equal((await server.call('GET', '/v1/reporting')).status, 401, 'a missing key is a 401 as always');
    assert.equal((await server.call('GET', '/healthz')).status, 200);

    await sleep(Number(refused.headers.get('Retry-After')) * 1000 + 50);
    const again = await server.call('GET', '/v1/reporting?limit=1', { key: fixture.key });
    assert.equal(again.status, 200, 'after Retry-After seconds a request passes');
    assert.equal((await server.call('GET', '/v1/reporting?limit=1', { key: fixture.key })).status, 429, 'and only as many as came back');
  });

  test('every answer to a request let through carries the key\'s state: r counts down, on a 200 as on a 400 or 422', async (t) => {
    let fixture!: Fixture;
    const server = await startTestServer(t, { rateLimiter: localRateLimiter({ perSecond: 1, burst: 60 }) }, async (store) => {
      fixture = await buildFixture(store, { tenant: 'acme', records: 3 });
    });
    const started = performance.now();
    const answers = [
      await server.call('GET', '/v1/reporting?limit=1', { key: fixture.key }),
      await server.call('GET', '/v1/users/groups', { key: fixture.key }),
      await server.call('GET', '/v1/reporting?limit=-1', { key: fixture.key }),
      await server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data: [{ user: 'nobody@acme.example', manager: 'user1@acme.example' }] } }),
      await server.call('GET', '/v1/tables/nope/records', { key: fixture.key }),
    ];
    assert.deepEqual(statusesOf(answers), [200, 200, 400, 422, 404]);
    const seconds = (performance.now() - started) / 1000;
    // Each request took a token; one came back a second meanwhile.
    const left = answers.map((answer) => {
      assert.equal(answer.headers.get('RateLimit-Policy'), '"per-key";q=60;w=60');
      const state = /^"per-key";r=(\d+);t=(\d+)$/.exec(answer.headers.get('RateLimit') ?? '');
      assert.ok(state, `${answer.status}: RateLimit ${answer.headers.get('RateLimit')}`);
      assert.ok(Number(state[2]) >= 1 && Number(state[2]) <= 60, 'full again within the window');
      return Number(state[1]);
    });
    assert.ok(left[0]! <= 59, `the first request took a token: r=${left[0]}`);
    assert.ok(left.at(-1)! <= 60 - answers.length + Math.ceil(seconds), `five tokens taken in ${seconds} s: r went ${left.join(',')}`);
    const unkeyed = await server.call('GET', '/v1/reporting');
    assert.equal(unkeyed.status, 401);
    assert.equal(unkeyed.headers.get('RateLimit'), null, 'a request without a valid key is not metered');
    assert.equal((await server.call('GET', '/healthz')).headers.get('RateLimit'), null);
  });

  test('two keys have buckets of their own, even of one tenant; bad keys take nothing from anyone', async (t) => {
    let fixture!: Fixture;
    const server = await startTestServer(t, { rateLimiter: localRateLimiter(POLICY) }, async (store) => {
      fixture = await buildFixture(store, { tenant: 'acme', records: 3 });
    });
    const other = await server.store.createKey('acme');
    for (let i = 0; i < 10; i += 1) assert.equal((await server.call('GET', '/v1/reporting', { key: 'cdk_000000000000_' + 'A'.repeat(43) })).status, 401);

    const first = await burst(() => server.call('GET', '/v1/reporting?limit=0', { key: fixture.key }), 8);
    assert.ok(count(first.answers, 200) >= POLICY.burst, `the 401s took nothing from the key: ${statusesOf(first.answers).join(',')}`);
    assert.ok(count(first.answers, 429) > 0, `the first key is refused past its burst: ${statusesOf(first.answers).join(',')}`);
    const second = await burst(() => server.call('GET', '/v1/reporting?limit=0', { key: other.key }), POLICY.burst);
    assert.deepEqual(statusesOf(second.answers), [200, 200, 200, 200], 'the second key has its whole burst');
  });

  test('without --rate-limit, nothing is metered', async (t) => {
    let fixture!: Fixture;
    const server = await startTestServer(t, {}, async (store) => {
      fixture = await buildFixture(store, { tenant: 'acme', records: 3 });
    });
    const { answers } = await burst(() => server.call('GET', '/v1/reporting?limit=0', { key: fixture.key }), 20);
    assert.deepEqual(new Set(statusesOf(answers)), new Set([200]));
    assert.equal(answers[0]!.headers.get('RateLimit'), null);
  });
});
