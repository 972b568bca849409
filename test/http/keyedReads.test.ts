import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import pg from 'pg';
import { structureId } from '../../src/domain/v2Json.js';
import { localRateLimiter } from '../../src/http/rateLimit.js';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { onlyOn, startTestServer, withOtherStore, type Exchange, type TestServer } from '../support/harness.js';

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

/** A read by a key that another process revoked since this server last checked it: a 401, found by the read's own statement. */
async function assertGoneInOneTrip(server: TestServer, key: string, path: string): Promise<void> {
  const revoked = await roundTrips(() => server.call('GET', path, { key }));
  assert.equal(revoked.answer.status, 401, path);
  assert.equal(revoked.trips.length, 1, `${path}: the read itself found the key gone: ${revoked.trips.join('\n---\n')}`);
}

const page = '/v1/reporting?limit=2';
const v2Statements = `/v2/reporting/${structureId({ kind: 'statements' })}/statements`;
const v2Deals = `/v2/reporting/${structureId({ kind: 'table', key: 'deals' })}/records`;
const v2None = `/v2/reporting/${structureId({ kind: 'table', key: 'none' })}/records`;

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
    await assertGoneInOneTrip(server, fixture.key, page);
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
    await assertGoneInOneTrip(server, fixture.key, tablePage);
    for (const path of ['/v1/tables/deals/records?limit=0', '/v1/tables/none/records']) assert.equal((await server.call('GET', path, { key: fixture.key })).status, 401, path);
  });

  test('a v2 page of the statements or of a data table, deep by start_id or refused, is one round trip, its bytes those of a key looked up first; a revocation counts at the next request', async (t) => {
    let fixture!: Fixture;
    const server = await startTestServer(t, {}, async (store) => {
      fixture = await buildFixture(store, { tenant: 'acme', records: 5, deals: 5 });
    });
    // The tables' ids learnt (as a client finds them), so that a table's page asks for nothing else.
    assert.equal((await server.call('GET', '/v2/data-structures', { key: fixture.key })).status, 200);
    const paths: string[] = [];
    for (const structure of [v2Statements, v2Deals]) {
      const first = await server.call('GET', `${structure}?limit=2`, { key: fixture.key });
      const deep = await server.call('GET', `${structure}?limit=2&start_id=${first.body.meta.next_start_id as string}`, { key: fixture.key });
      assert.equal(deep.body.data.length, 2, structure);
      const last = `${structure}?limit=2&start_id=${deep.body.meta.next_start_id as string}`;
      paths.push(`${structure}?limit=2`, `${structure}?limit=1000`, `${structure}?limit=2&start_id=${first.body.meta.next_start_id as string}`, last);
      paths.push(`${structure}?start_id=nobody`, `${structure}?limit=2&start_id=${encodeURIComponent('a\u0000b')}`);
    }
    paths.push(`${v2None}?limit=2`, `${v2None}?start_id=x`);
    for (const path of paths) {
      // A key not seen before: looked up first, then the page read as before.
      const held = await server.store.createKey('acme');
      const plain = await roundTrips(() => server.call('GET', path, { key: held.key }));
      const keyed = await roundTrips(() => server.call('GET', path, { key: held.key }));
      assert.ok(plain.trips.length >= 2, `${path}: a key not seen before is looked up first: ${plain.trips.length}`);
      // An id PostgreSQL cannot hold names no record: no keyed read is sent for it. A structure id
      // of no table this server has listed is looked for among the tenant's tables first.
      const trips = path.includes('%00') || path.startsWith(v2None) ? 2 : 1;
      assert.ok(keyed.trips.length <= trips, `${path}: ${keyed.trips.join('\n---\n')}`);
      assert.equal(keyed.answer.status, plain.answer.status, path);
      assert.equal(keyed.answer.text, plain.answer.text, path);
      assert.equal(keyed.answer.headers.get('ETag'), plain.answer.headers.get('ETag'), path);
    }
    const statuses = await Promise.all(paths.slice(0, 4).map(async (path) => (await server.call('GET', path, { key: fixture.key })).status));
    assert.deepEqual(statuses, [200, 200, 200, 200]);
    assert.equal(await withOtherStore(server.database, (other) => other.revokeKey(fixture.key)), true);
    for (const path of [`${v2Statements}?limit=2`, `${v2Deals}?limit=2`]) await assertGoneInOneTrip(server, fixture.key, path);
  });

  test('property: any v2 page, of either structure, after any id or none, is the same bytes read with its key as after a key looked up first', async (t) => {
    let fixture!: Fixture;
    const server = await startTestServer(t, {}, async (store) => {
      fixture = await buildFixture(store, { tenant: 'acme', records: 9, deals: 5 });
    });
    assert.equal((await server.call('GET', '/v2/data-structures', { key: fixture.key })).status, 200);
    /** The ids of a structure's records, in order, as a walk of pages of one finds them. */
    const idsOf = async (structure: string): Promise<string[]> => {
      const ids: string[] = [];
      for (let path = `${structure}?limit=1`; ; ) {
        const next = (await server.call('GET', path, { key: fixture.key })).body.meta.next_start_id as string | null;
        if (next === null) return ids;
        ids.push(next);
        path = `${structure}?limit=1&start_id=${encodeURIComponent(next)}`;
      }
    };
    const structures = [
      { path: v2Statements, ids: await idsOf(v2Statements) },
      { path: v2Deals, ids: await idsOf(v2Deals) },
    ];
    assert.deepEqual(structures.map(({ ids }) => ids.length), [8, 4], 'every record but the last names a next page');
    const pages = fc.record({ structure: fc.constantFrom(...structures), limit: fc.integer({ min: 1, max: 10 }), start: fc.integer({ min: -1, max: 9 }) });
    await fc.assert(
      fc.asyncProperty(pages, async ({ structure, limit, start }) => {
        const startId = start < 0 ? undefined : (structure.ids[start] ?? 'no-such-record');
        const path = `${structure.path}?limit=${limit}${startId === undefined ? '' : `&start_id=${encodeURIComponent(startId)}`}`;
        const held = await server.store.createKey('acme');
        const plain = await server.call('GET', path, { key: held.key });
        const keyed = await roundTrips(() => server.call('GET', path, { key: held.key }));
        assert.equal(keyed.trips.length, 1, path);
        assert.deepEqual([keyed.answer.status, keyed.answer.text, keyed.answer.headers.get('ETag')], [plain.status, plain.text, plain.headers.get('ETag')], path);
      }),
      { numRuns: 25 },
    );
  });

  test('property: any filtered reporting page or count, by a cursor or an offset, is one round trip with its key and the same bytes as after a key looked up first; a revocation counts at the next request', async (t) => {
    let fixture!: Fixture;
    const server = await startTestServer(t, {}, async (store) => {
      fixture = await buildFixture(store, { tenant: 'acme', records: 14, users: 3 });
    });
    const filters = fc.record(
      {
        user: fc.constantFrom('user0@acme.example', 'USER1@acme.example', 'nobody@acme.example'),
        plan: fc.constantFrom('AE 2026', 'none'),
        date_from: fc.constantFrom('2026-02-01', '2026-03-15', '2027-01-01'),
        date_to: fc.constantFrom('2026-05-15', '2026-11-30'),
      },
      { requiredKeys: [] },
    );
    const reads = fc.record({ filter: filters, limit: fc.integer({ min: 0, max: 4 }), offset: fc.integer({ min: 0, max: 6 }), next: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(reads, async ({ filter, limit, offset, next }) => {
        const params = new URLSearchParams({ ...filter, limit: String(limit), offset: String(offset) });
        if (params.size === 2) params.set('user', 'user2@acme.example');
        let path = `/v1/reporting?${params.toString()}`;
        const held = await server.store.createKey('acme');
        const first = await server.call('GET', path, { key: held.key });
        // Its next page (read by the cursor in its link), or the same page again.
        if (next && typeof first.body?.next === 'string') path = first.body.next.slice(server.url.length);
        const plain = await server.call('GET', path, { key: (await server.store.createKey('acme')).key });
        const keyed = await roundTrips(() => server.call('GET', path, { key: held.key }));
        assert.equal(keyed.trips.length, 1, `${path}: ${keyed.trips.join('\n---\n')}`);
        assert.deepEqual([keyed.answer.status, keyed.answer.text, keyed.answer.headers.get('ETag')], [plain.status, plain.text, plain.headers.get('ETag')], path);
      }),
      { numRuns: 30 },
    );
    const path = '/v1/reporting?user=user0@acme.example&limit=2';
    assert.equal((await server.call('GET', path, { key: fixture.key })).status, 200);
    assert.equal(await withOtherStore(server.database, (other) => other.revokeKey(fixture.key)), true);
    for (const gone of [path, '/v1/reporting?user=user0@acme.example&limit=0']) await assertGoneInOneTrip(server, fixture.key, gone);
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
    assert.equal((await server.call('GET', '/v2/data-structures', { key: held.key })).status, 200);
    assert.equal(await server.store.revokeKey(held.key), true);
    const cases: [string, string][] = [
      ['a limit the contract refuses (400)', '/v1/reporting?limit=abc'],
      ['an offset past every record (an empty page, nothing read)', '/v1/reporting?offset=100'],
      ['a table the tenant has not (404)', '/v1/tables/none/records'],
      ['a filtered page', '/v1/reporting?user=nobody@example.com'],
      ['a filtered page with a cursor the store refuses (400)', '/v1/reporting?user=user0@acme.example&cursor=garbage'],
      ['a filtered count', '/v1/reporting?date_from=2026-01-01&limit=0'],
      ['a data table', '/v1/tables/deals/records'],
      ['a data table\'s page with a limit the contract refuses (400)', '/v1/tables/deals/records?limit=abc'],
      ['a data table\'s count', '/v1/tables/deals/records?limit=0'],
      ['the fields', '/v1/reporting/fields'],
      ['a v2 page', `${v2Statements}?limit=2`],
      ['a v2 page after an id of no record (400)', `${v2Statements}?start_id=nobody`],
      ['a v2 page with a limit the contract refuses (400)', `${v2Statements}?limit=abc`],
      ['a v2 page of a data table', `${v2Deals}?limit=2`],
      ['a v2 page of a table the tenant has not (404)', `${v2None}?limit=2`],
      ['a v2 page with time filters (read as before, the key looked up first)', `${v2Statements}?last_modified_after=2020-01-01T00:00:00Z`],
    ];
    for (const [name, path] of cases) assert.equal((await server.call('GET', path, { key: held.key })).status, 401, name);
    assert.equal((await server.call('GET', page, { key: fixture.key })).status, 200, 'the tenant\'s other key reads on');
  });

  const listings: [name: string, path: string][] = [
    ['the reporting records', page],
    ['a data table', '/v1/tables/deals/records?limit=1'],
    ['filtered reporting records', '/v1/reporting?plan=AE%202026&limit=1'],
    ['v2 statements', `${v2Statements}?limit=1`],
    ['a data table by v2', `${v2Deals}?limit=1`],
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
