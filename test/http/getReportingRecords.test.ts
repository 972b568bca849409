import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { shared, startTestServer, type TestServer } from '../support/harness.js';
import { buildFixture, fixtureMonth, fixtureUser, type Fixture } from '../support/fixture.js';

async function serverWithFixture(t: Parameters<typeof startTestServer>[0], records = 25, options = {}) {
  let fixture!: Fixture;
  const server = await startTestServer(t, options, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme', records });
  });
  return { server, fixture };
}

/** The 25-record fixture, for the tests that only read it. */
const sharedFixture = shared((scope) => serverWithFixture(scope));

/**
 * A fixture of `records` records in a tenant of its own (`acme1`, `acme2`, ...) on a server that
 * the tests of a `describe` share: a test reads and writes only through its tenant's key, and its
 * record ids carry the tenant's name, so another test's records seen would fail its comparison.
 */
function fixturesOnSharedServer() {
  const sharedServer = shared((scope) => startTestServer(scope));
  return async (records: number) => {
    const server = await sharedServer();
    fixtureTenants += 1;
    const tenant = `acme${fixtureTenants}`;
    const fixture = await buildFixture(server.store, { tenant, records });
    return { server, fixture, tenant };
  };
}
let fixtureTenants = 0;

const ids = (body: { data: { id: string }[] }) => body.data.map((record) => record.id);

/** The ids of every page from `path` on, following `next`; `afterEachPage` runs between pages. */
async function walkByNext(server: TestServer, key: string, path: string, afterEachPage = async () => {}): Promise<string[]> {
  const seen: string[] = [];
  let next: string | undefined = path;
  while (next) {
    const page = await server.call('GET', next, { key });
    seen.push(...ids(page.body));
    next = page.body.next?.slice(server.url.length);
    await afterEachPage();
  }
  return seen;
}
const expectedIds = (from: number, to: number, tenant = 'acme') => Array.from({ length: to - from }, (_, i) => `${tenant}-r${from + i}`);

describe('GET /v1/reporting paging', () => {
  const fixtureOfSize = fixturesOnSharedServer();
  test('pages follow storage order; count is the page size; next carries limit and offset', async () => {
    const { server, fixture } = await sharedFixture();
    const first = await server.call('GET', '/v1/reporting?limit=10', { key: fixture.key });
    assert.equal(first.status, 200);
    assert.equal(first.body.count, 10);
    assert.deepEqual(ids(first.body), expectedIds(0, 10));
    assert.equal(first.body.next, `${server.url}/v1/reporting?limit=10&offset=10`);
    const last = await server.call('GET', '/v1/reporting?limit=10&offset=20', { key: fixture.key });
    assert.equal(last.body.count, 5);
    assert.deepEqual(ids(last.body), expectedIds(20, 25));
    assert.equal('next' in last.body, false, 'no next on the last page');
  });

  test('the default limit is 2000 and the default offset 0', async () => {
    const { server, fixture, tenant } = await fixtureOfSize(2005);
    const page = await server.call('GET', '/v1/reporting', { key: fixture.key });
    assert.equal(page.body.count, 2000);
    assert.deepEqual(ids(page.body), expectedIds(0, 2000, tenant));
    assert.equal(page.body.next, `${server.url}/v1/reporting?limit=2000&offset=2000`);
  });

  test('a page ending exactly at the last record has no next', async () => {
    const { server, fixture } = await fixtureOfSize(20);
    const page = await server.call('GET', '/v1/reporting?limit=10&offset=10', { key: fixture.key });
    assert.equal(page.body.count, 10);
    assert.equal(page.body.next, undefined);
  });

  test('limit=0 gives the total count, no data and no next, at any offset', async () => {
    const { server, fixture } = await sharedFixture();
    for (const offset of ['0', '7', '9223372036854775807']) {
      const page = await server.call('GET', `/v1/reporting?limit=0&offset=${offset}`, { key: fixture.key });
      assert.deepEqual(page.body, { count: 25, data: [] });
    }
  });

  test('following next from the first page visits every record exactly once, in order', async () => {
    const { server, fixture, tenant } = await fixtureOfSize(103);
    assert.deepEqual(await walkByNext(server, fixture.key, '/v1/reporting?limit=7'), expectedIds(0, 103, tenant));
  });

  test('a walk by next while records are appended sees every record that existed throughout, once', async () => {
    const { server, fixture, tenant } = await fixtureOfSize(50);
    const { fixtureLine } = await import('../support/fixture.js');
    let appended = 50;
    const seen = await walkByNext(server, fixture.key, '/v1/reporting?limit=7', async () => {
      if (appended >= 80) return;
      const lines = [0, 1, 2].map((i) => fixtureLine(tenant, appended + i, fixture.users));
      await server.store.loadTenant(tenant, {}, async (writer) => {
        await writer.upsertReportingRecords(lines);
        await writer.finish();
      });
      appended += 3;
    });
    assert.deepEqual(seen.slice(0, 50), expectedIds(0, 50, tenant), 'the records of the whole walk, in order');
    assert.equal(new Set(seen).size, seen.length, 'no record twice');
    assert.deepEqual(seen, expectedIds(0, seen.length, tenant), 'records appended meanwhile follow, in order');
  });

  test('a page rebuilt from offset and limit alone equals the page next points to', async () => {
    const { server, fixture } = await sharedFixture();
    const first = await server.call('GET', '/v1/reporting?limit=4', { key: fixture.key });
    const viaNext = await server.call('GET', first.body.next.slice(server.url.length), { key: fixture.key });
    const rebuilt = await server.call('GET', '/v1/reporting?offset=4&limit=4', { key: fixture.key });
    assert.equal(viaNext.text, rebuilt.text);
  });

  const beyond: [string, string][] = [
    ['exactly at the end', '25'],
    ['past the end', '26'],
    ['past 2^53', '9007199254740993'],
    ['the largest offset', '9223372036854775807'],
    ['with leading zeros', '0009223372036854775807'],
  ];
  // Reads only: one server for the cases of each list.
  test('offsets at or past the end', async (t) => {
    const { server, fixture } = await sharedFixture();
    for (const [name, offset] of beyond) {
      await t.test(`an offset ${name} gives an empty page without next`, async () => {
        const page = await server.call('GET', `/v1/reporting?offset=${offset}&limit=5`, { key: fixture.key });
        assert.equal(page.status, 200);
        assert.deepEqual(page.body, { count: 0, data: [] });
      });
    }
  });

  const invalid: [string, string, string][] = [
    ['offset one past the largest', 'offset=9223372036854775808', '/query/offset'],
    ['offset far past the largest', 'offset=99999999999999999999999', '/query/offset'],
    ['negative offset', 'offset=-1', '/query/offset'],
    ['fractional offset', 'offset=1.5', '/query/offset'],
    ['exponent offset', 'offset=1e3', '/query/offset'],
    ['empty offset', 'offset=', '/query/offset'],
    ['text offset', 'offset=abc', '/query/offset'],
    ['repeated offset', 'offset=1&offset=2', '/query/offset'],
    ['limit above 2000', 'limit=2001', '/query/limit'],
    ['negative limit', 'limit=-1', '/query/limit'],
    ['text limit', 'limit=ten', '/query/limit'],
    ['signed limit', 'limit=+5', '/query/limit'],
  ];
  test('offsets and limits refused', async (t) => {
    const { server, fixture } = await sharedFixture();
    for (const [name, query, pointer] of invalid) {
      await t.test(`${name} is a 400 pointing at ${pointer}`, async () => {
        const response = await server.call('GET', `/v1/reporting?${query}`, { key: fixture.key });
        assert.equal(response.status, 400);
        assert.ok(
          response.body.errors.some((error: { pointer: string }) => error.pointer === pointer),
          `errors ${JSON.stringify(response.body.errors)} should point at ${pointer}`,
        );
      });
    }
  });
});

describe('next URL base', () => {
  test('without --public-url, next is built from the Host header', async () => {
    const { server, fixture } = await sharedFixture();
    const page = await server.call('GET', '/v1/reporting?limit=5', { key: fixture.key, headers: { Host: 'api.example.test:8443' } });
    assert.equal(page.body.next, 'http://api.example.test:8443/v1/reporting?limit=5&offset=5');
  });

  test('forwarded headers are ignored unless the operator trusts the proxy', async (t) => {
    const headers = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'edge.example.test' };
    const { server, fixture } = await sharedFixture();
    const untrusted = await server.call('GET', '/v1/reporting?limit=5', { key: fixture.key, headers });
    assert.equal(untrusted.body.next, `${server.url}/v1/reporting?limit=5&offset=5`);
    const trusting = await serverWithFixture(t, 25, { trustProxy: true });
    const trusted = await trusting.server.call('GET', '/v1/reporting?limit=5', { key: trusting.fixture.key, headers });
    assert.equal(trusted.body.next, 'https://edge.example.test/v1/reporting?limit=5&offset=5');
  });

  test('with --public-url, next starts with it whatever the Host', async (t) => {
    const { server, fixture } = await serverWithFixture(t, 25, { publicUrl: 'https://comp.example.test/' });
    const page = await server.call('GET', '/v1/reporting?limit=5', { key: fixture.key, headers: { Host: 'other.test' } });
    assert.equal(page.body.next, 'https://comp.example.test/v1/reporting?limit=5&offset=5');
  });
});

describe('statement reporting records', () => {
  test('standard fields, user object, metrics with null and dimensions by month', async () => {
    const { server, fixture } = await sharedFixture();
    const page = await server.call('GET', '/v1/reporting?limit=25', { key: fixture.key });
    for (const [i, record] of page.body.data.entries()) {
      const userIndex = i % fixture.users;
      const month = fixtureMonth(i);
      assert.equal(record.date, `${month}-15`);
      assert.deepEqual(record.user, fixtureUser('acme', userIndex));
      assert.equal(record.payment, i + 0.5);
      assert.equal(record.target_achievement, null);
      assert.equal(record.new_arr, i % 5 === 0 ? null : i * 10, `record ${i} new_arr`);
      assert.equal(record.new_arr_currency, 'USD');
      assert.deepEqual(record.segment, []);
      const monthNumber = (i % 12) + 1;
      const region = userIndex !== 0 ? [] : monthNumber >= 3 && monthNumber <= 5 ? ['EMEA'] : monthNumber >= 9 ? ['APAC'] : [];
      assert.deepEqual(record.region, region, `record ${i} (user u${userIndex}, ${month}) region`);
    }
  });

  test('a tenant with no dimensions and no metrics has only the standard fields', async (t) => {
    const { server, fixture } = await serverWithFixture(t);
    const { fixtureLine } = await import('../support/fixture.js');
    await server.store.loadTenant('plain', {}, async (writer) => {
      await writer.upsertUsers([fixtureUser('plain', 0)]);
      await writer.upsertReportingRecords([{ ...fixtureLine('plain', 0, 1), metrics: {} }]);
      await writer.finish();
    });
    const page = await server.call('GET', '/v1/reporting', { key: (await server.store.createKey('plain')).key });
    assert.equal(page.body.count, 1);
    assert.deepEqual(Object.keys(page.body.data[0]).sort(), [
      'achievement', 'achievement_currency', 'date', 'id', 'on_target_earning', 'on_target_earning_currency',
      'payment', 'payment_currency', 'plan', 'target', 'target_achievement', 'target_currency', 'user',
    ]);
    assert.ok(fixture.records > 0);
  });
});

