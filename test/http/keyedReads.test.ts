import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import { localRateLimiter } from '../../src/http/rateLimit.js';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { onlyOn, startTestServer, withOtherStore, type Exchange } from '../support/harness.js';

/**
 * On PostgreSQL, a read of the reporting records by a key this server has checked before checks
 * the key inside the read's statement (docs/architecture.md#how-a-read-is-served): one round
 * trip. Round trips are the statements the driver's clients send while a request is answered
 * that read a key, a tenant's state, its reporting records or its data tables: the server's background work (its
 * import runner's look for pending imports) may send one of its own meanwhile.
 */
async function roundTrips(call: () => Promise<Exchange>): Promise<{ answer: Exchange; trips: string[] }> {
  const trips: string[] = [];
  const prototype = pg.Client.prototype as unknown as Record<'query', (...args: unknown[]) => unknown>;
  const query = prototype.query;
  prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | { text: string };
    const text = typeof config === 'string' ? config : config.text;
    if (/\b(api_keys|tenant_state|reporting_records|data_tables|table_records)\b/.test(text)) trips.push(text);
    return query.apply(this, args);
  };
  try {
    return { answer: await call(), trips };
  } finally {
    prototype.query = query;
  }
}

const page = '/v1/reporting?limit=2';

describe('reads with the key checked in their statement', { skip: onlyOn('postgres') }, () => {
  test('a page and a count of a key checked before are one round trip each; a revocation by another process counts at the next request', async (t) => {
    let fixture!: Fixture;
    const server = await startTestServer(t, {}, async (store) => {
      fixture = await buildFixture(store, { tenant: 'acme', records: 3 });
    });
    const first = await roundTrips(() => server.call('GET', page, { key: fixture.key }));
    assert.equal(first.answer.status, 200);
    assert.ok(first.trips.length >= 2, `a key not seen before is looked up first: ${first.trips.length}`);

    const again = await roundTrips(() => server.call('GET', page, { key: fixture.key }));
    assert.equal(again.answer.status, 200);
    assert.deepEqual(again.answer.body.data.map((record: { id: string }) => record.id), ['acme-r0', 'acme-r1']);
    assert.equal(again.trips.length, 1, again.trips.join('\n---\n'));
    assert.equal(again.answer.headers.get('ETag'), first.answer.headers.get('ETag'), 'the same version, read with the page');

    const count = await roundTrips(() => server.call('GET', '/v1/reporting?limit=0', { key: fixture.key }));
    assert.equal(count.answer.status, 200);
    assert.equal(count.answer.body.count, 3);
    assert.equal(count.trips.length, 1, count.trips.join('\n---\n'));

    assert.equal(await withOtherStore(server.database, (other) => other.revokeKey(fixture.key)), true);
    const revoked = await roundTrips(() => server.call('GET', page, { key: fixture.key }));
    assert.equal(revoked.answer.status, 401);
    assert.equal(revoked.trips.length, 1, `the read itself found the key gone: ${revoked.trips.join('\n---\n')}`);
    assert.equal((await server.call('GET', '/v1/reporting?limit=0', { key: fixture.key })).status, 401);
  });

  test('a data table\'s page and count, and a table the tenant has not, are one round trip each; a revocation counts at the next request', async (t) => {
    let fixture!: Fixture;
    const server = await startTestServer(t, {}, async (store) => {
      fixture = await buildFixture(store, { tenant: 'acme', records: 3 });
    });
    const tablePage = '/v1/tables/deals/records?limit=1';
    const first = await roundTrips(() => server.call('GET', tablePage, { key: fixture.key }));
    assert.equal(first.answer.status, 200);
    assert.ok(first.trips.length >= 2, `a key not seen before is looked up first: ${first.trips.length}`);

    const again = await roundTrips(() => server.call('GET', tablePage, { key: fixture.key }));
    assert.equal(again.answer.status, 200);
    assert.deepEqual(again.answer.body, first.answer.body);
    assert.equal(again.trips.length, 1, again.trips.join('\n---\n'));
    assert.equal(again.answer.headers.get('ETag'), first.answer.headers.get('ETag'), 'the same version, read with the page');

    const count = await roundTrips(() => server.call('GET', '/v1/tables/deals/records?limit=0', { key: fixture.key }));
    assert.equal(count.answer.status, 200);
    const whole = await server.call('GET', '/v1/tables/deals/records?limit=1000', { key: fixture.key });
    assert.equal(count.answer.body.count, whole.body.data.length);
    assert.equal(count.trips.length, 1, count.trips.join('\n---\n'));

    for (const path of ['/v1/tables/none/records', '/v1/tables/none/records?limit=0', '/v1/tables/none/records?offset=100000']) {
      const missing = await roundTrips(() => server.call('GET', path, { key: fixture.key }));
      assert.equal(missing.answer.status, 404, path);
      assert.ok(missing.trips.length <= 2, `${path}: ${missing.trips.join('\n---\n')}`);
    }
    assert.equal((await server.call('GET', '/v1/tables/deals/records?offset=100000', { key: fixture.key })).status, 200, 'past every record');

    assert.equal(await withOtherStore(server.database, (other) => other.revokeKey(fixture.key)), true);
    const revoked = await roundTrips(() => server.call('GET', tablePage, { key: fixture.key }));
    assert.equal(revoked.answer.status, 401);
    assert.equal(revoked.trips.length, 1, `the read itself found the key gone: ${revoked.trips.join('\n---\n')}`);
    for (const path of ['/v1/tables/deals/records?limit=0', '/v1/tables/none/records']) assert.equal((await server.call('GET', path, { key: fixture.key })).status, 401, path);
  });

  test('reads of one request side by side (the count and the tables of GET /v2/data-structures): each settles the key, none refuses it', async (t) => {
    let fixture!: Fixture;
    const server = await startTestServer(t, {}, async (store) => {
      fixture = await buildFixture(store, { tenant: 'acme', records: 3 });
    });
    const statuses: number[] = [];
    for (let i = 0; i < 20; i += 1) statuses.push((await server.call('GET', '/v2/data-structures', { key: fixture.key })).status);
    assert.deepEqual(new Set(statuses), new Set([200]), statuses.join(','));
  });

  test('a key gone is answered 401 before any other refusal, also where no keyed read ran', async (t) => {
    let fixture!: Fixture;
    const server = await startTestServer(t, {}, async (store) => {
      fixture = await buildFixture(store, { tenant: 'acme', records: 3 });
    });
    const held = await server.store.createKey('acme');
    assert.equal((await server.call('GET', page, { key: held.key })).status, 200);
    assert.equal((await server.call('GET', '/v1/tables/deals/records', { key: held.key })).status, 200);
    assert.equal(await server.store.revokeKey(held.key), true);
    const cases: [string, string][] = [
      ['a limit the contract refuses (400)', '/v1/reporting?limit=abc'],
      ['an offset past every record (an empty page, nothing read)', '/v1/reporting?offset=100'],
      ['a table the tenant has not (404)', '/v1/tables/none/records'],
      ['a filtered page (read as before, the key looked up first)', '/v1/reporting?user=nobody@example.com'],
      ['a data table', '/v1/tables/deals/records'],
      ['a data table\'s page with a limit the contract refuses (400)', '/v1/tables/deals/records?limit=abc'],
      ['a data table\'s count', '/v1/tables/deals/records?limit=0'],
      ['the fields', '/v1/reporting/fields'],
    ];
    for (const [name, path] of cases) assert.equal((await server.call('GET', path, { key: held.key })).status, 401, name);
    assert.equal((await server.call('GET', page, { key: fixture.key })).status, 200, 'the tenant\'s other key reads on');
  });

  const listings: [name: string, path: string][] = [
    ['the reporting records', page],
    ['a data table', '/v1/tables/deals/records?limit=1'],
  ];
  for (const [listing, path] of listings) {
    test(`the rate limit on ${listing}: a key gone is a 401 before a 429, and its refused reads take no token`, async (t) => {
      const policy = { perSecond: 0.02, burst: 3 };
      let fixture!: Fixture;
      const server = await startTestServer(t, { rateLimiter: localRateLimiter(policy) }, async (store) => {
        fixture = await buildFixture(store, { tenant: 'acme', records: 3 });
      });
      const id = /^cdk_([0-9a-f]+)_/.exec(fixture.key)![1]!;
      const read = async () => (await server.call('GET', path, { key: fixture.key })).status;
      assert.equal(await read(), 200, 'the key checked once, one token taken');
      await server.sql.exec(`UPDATE api_keys SET revoked_at = '2026-01-01T00:00:00.000Z' WHERE id = '${id}'`);
      for (let i = 0; i < 4; i += 1) assert.equal(await read(), 401, `refused read ${i}`);
      await server.sql.exec(`UPDATE api_keys SET revoked_at = NULL WHERE id = '${id}'`);
      assert.deepEqual([await read(), await read()], [200, 200], 'the 401s gave their tokens back');
      assert.equal(await read(), 429, 'the bucket empty: a valid key is refused by the rate');
      await server.sql.exec(`UPDATE api_keys SET revoked_at = '2026-01-01T00:00:00.000Z' WHERE id = '${id}'`);
      const gone = await server.call('GET', path, { key: fixture.key });
      assert.equal(gone.status, 401, 'an empty bucket of a key gone: the 401 first');
      assert.equal(gone.headers.get('RateLimit'), null);
    });
  }
});
