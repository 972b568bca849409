import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildFixture, fixtureLine, fixtureUser, type Fixture, type FixtureSpec } from '../support/fixture.js';
import { shared, startTestServer, type TestServer } from '../support/harness.js';
import { walk } from '../support/syncWalk.js';

const ids = (records: Record<string, unknown>[]) => records.map((record) => record.id);
const sorted = (values: unknown[]) => [...values].sort();

/**
 * The fixture in a tenant of its own (`acme1`, `acme2`, ...; the same e-mails) on the describe's
 * server: a test walks and writes only through its tenant, and the ids it expects carry the
 * tenant's name, so another test's records seen would fail its comparison.
 */
async function tenantOnSharedServer(sharedServer: () => Promise<TestServer>, spec: Omit<FixtureSpec, 'tenant'>) {
  const server = await sharedServer();
  const tenant = `acme${(tenants += 1)}`;
  const fixture = await buildFixture(server.store, { tenant, emailDomain: 'acme.example', ...spec });
  return { server, fixture, tenant };
}
let tenants = 0;

describe('GET ...?changed_since (incremental sync)', () => {
  // The tests that read and write one tenant share a server; those about import --replace and
  // tokens across tenants (and stamps never issued in the database) keep their own.
  const sharedServer = shared((scope) => startTestServer(scope));
  test('changed_since=0 is a full read in change order, walked by next, ending with a sync_token; nothing changed: nothing sent', async () => {
    const { server, fixture, tenant } = await tenantOnSharedServer(sharedServer, { records: 25, deals: 7 });
    const full = await server.call('GET', '/v1/reporting?limit=2000', { key: fixture.key });
    const first = await walk(server, fixture.key, '/v1/reporting?changed_since=0&limit=10');
    assert.equal(first.pages, 3);
    assert.deepEqual(first.records, full.body.data, 'one load: change order is storage order');
    const again = await server.call('GET', `/v1/reporting?changed_since=${first.token}`, { key: fixture.key });
    assert.deepEqual(again.body, { count: 0, data: [], sync_token: again.body.sync_token });

    const deals = await walk(server, fixture.key, '/v1/tables/deals/records?changed_since=0&limit=3');
    assert.deepEqual(ids(deals.records), Array.from({ length: 7 }, (_, i) => `${tenant}-d${i}`));
    const none = await server.call('GET', `/v1/tables/deals/records?changed_since=${deals.token}`, { key: fixture.key });
    assert.equal(none.body.count, 0);
  });

  test('a bulk upsert sends exactly the records whose dimension fields changed, with the new fields', async () => {
    const { server, fixture, tenant } = await tenantOnSharedServer(sharedServer, { records: 36, users: 3 });
    const { token } = await walk(server, fixture.key, '/v1/reporting?changed_since=0');
    // u1 holds records 1, 4, 7, ...: months (i % 12) + 1; from 2026-06 on are those with i % 12 >= 5.
    const put = await server.call('PUT', '/v1/users/groups/bulk', {
      key: fixture.key,
      json: { data: [{ user: 'user1@acme.example', group_dimension: 'segment', group: 'SMB', start_date: '2026-06' }] },
    });
    assert.equal(put.status, 200, put.text);
    const changed = await walk(server, fixture.key, `/v1/reporting?changed_since=${token}&limit=4`);
    const expected = Array.from({ length: 36 }, (_, i) => i).filter((i) => i % 3 === 1 && i % 12 >= 5);
    assert.deepEqual(sorted(ids(changed.records)), sorted(expected.map((i) => `${tenant}-r${i}`)));
    for (const record of changed.records) assert.deepEqual(record.segment, ['SMB']);
    // The same attribution again changes nothing.
    await server.call('PUT', '/v1/users/groups/bulk', {
      key: fixture.key,
      json: { data: [{ user: 'user1@acme.example', group_dimension: 'segment', group: 'SMB', start_date: '2026-06' }] },
    });
    const after = await server.call('GET', `/v1/reporting?changed_since=${changed.token}`, { key: fixture.key });
    assert.equal(after.body.count, 0);
  });

  test('imports send the records whose content changed: an edited record, a renamed user, a new metric; not an unchanged one', async () => {
    const { server, fixture, tenant } = await tenantOnSharedServer(sharedServer, { records: 12, users: 3 });
    const { token } = await walk(server, fixture.key, '/v1/reporting?changed_since=0');
    await server.store.loadTenant(tenant, {}, async (writer) => {
      await writer.upsertReportingRecords([fixtureLine(tenant, 0, 3), { ...fixtureLine(tenant, 4, 3), payment: 99 }]);
      await writer.finish();
    });
    const edited = await walk(server, fixture.key, `/v1/reporting?changed_since=${token}`);
    assert.deepEqual(ids(edited.records), [`${tenant}-r4`]);
    assert.equal(edited.records[0]!.payment, 99);

    await server.store.loadTenant(tenant, {}, async (writer) => {
      await writer.upsertUsers([{ ...fixtureUser(tenant, 2, 'acme.example'), name: 'Renamed' }]);
      await writer.finish();
    });
    const renamed = await walk(server, fixture.key, `/v1/reporting?changed_since=${edited.token}`);
    assert.deepEqual(sorted(ids(renamed.records)), sorted([11, 2, 5, 8].map((i) => `${tenant}-r${i}`)));

    await server.store.loadTenant(tenant, {}, async (writer) => {
      await writer.defineMetricsAndDimensions(['churn'], []);
      await writer.finish();
    });
    const metric = await walk(server, fixture.key, `/v1/reporting?changed_since=${renamed.token}`);
    assert.equal(metric.records.length, 12);
    for (const record of metric.records) assert.equal(record.churn, null);
  });

  test('a change made during a walk is in that walk or the next sync: the copy ends as a full read', async () => {
    const { server, fixture } = await tenantOnSharedServer(sharedServer, { records: 24, users: 3 });
    const copy = new Map<unknown, Record<string, unknown>>();
    const first = await server.call('GET', '/v1/reporting?changed_since=0&limit=5', { key: fixture.key });
    for (const record of first.body.data) copy.set(record.id, record);
    // u0's records 0, 3, 6, ... in every month: some were sent already, some are still ahead.
    const put = await server.call('PUT', '/v1/users/groups/bulk', {
      key: fixture.key,
      json: { data: [{ user: 'user0@acme.example', group_dimension: 'segment', group: 'Mid', start_date: '2026-01' }] },
    });
    assert.equal(put.status, 200);
    const rest = await walk(server, fixture.key, first.body.next.slice(server.url.length));
    for (const record of rest.records) copy.set(record.id, record);
    const next = await walk(server, fixture.key, `/v1/reporting?changed_since=${rest.token}`);
    for (const record of next.records) copy.set(record.id, record);
    const full = await server.call('GET', '/v1/reporting', { key: fixture.key });
    assert.deepEqual(sorted([...copy.values()].map((record) => JSON.stringify(record))), sorted(full.body.data.map((record: unknown) => JSON.stringify(record))));
    assert.ok(full.body.data.filter((record: { user: { id: string } }) => record.user.id === 'u0').every((record: { segment: string[] }) => record.segment[0] === 'Mid'));
  });

  test('a token from before import --replace gets 410 (sync again); a sync from 0 then shows only the new data', async (t) => {
    let fixture!: Fixture;
    const server = await startTestServer(t, {}, async (store) => {
      fixture = await buildFixture(store, { tenant: 'acme', records: 6, deals: 3 });
    });
    const reporting = await walk(server, fixture.key, '/v1/reporting?changed_since=0&limit=4');
    const partway = (await server.call('GET', '/v1/reporting?changed_since=0&limit=2', { key: fixture.key })).body.next.slice(server.url.length);
    const deals = await walk(server, fixture.key, '/v1/tables/deals/records?changed_since=0');
    await server.store.loadTenant('acme', { replace: true }, async (writer) => {
      await writer.defineMetricsAndDimensions(['new_arr'], ['region', 'segment']);
      await writer.upsertUsers([fixtureUser('acme', 0)]);
      await writer.upsertReportingRecords([{ ...fixtureLine('acme', 0, 1), id: 'fresh' }]);
      await writer.finish();
    });
    for (const path of [`/v1/reporting?changed_since=${reporting.token}`, partway, `/v1/tables/deals/records?changed_since=${deals.token}`]) {
      const gone = await server.call('GET', path, { key: fixture.key });
      const expectedStatus = path.startsWith('/v1/tables') ? 404 : 410; // the table is gone with the replaced data
      assert.equal(gone.status, expectedStatus, `${path}: ${gone.text}`);
      if (expectedStatus === 410) assert.equal(gone.body.type, 'urn:compdata:problem:sync-expired');
    }
    const fresh = await walk(server, fixture.key, '/v1/reporting?changed_since=0');
    assert.deepEqual(ids(fresh.records), ['fresh']);
    const next = await server.call('GET', `/v1/reporting?changed_since=${fresh.token}`, { key: fixture.key });
    assert.equal(next.status, 200);
  });

  test('bad input: a token not issued here, of another listing or tenant, from the future; offset, cursor, limit=0 or a filter beside it: 400 with a pointer', async (t) => {
    let acme!: Fixture;
    let globex!: Fixture;
    const server = await startTestServer(t, {}, async (store) => {
      acme = await buildFixture(store, { tenant: 'acme' });
      globex = await buildFixture(store, { tenant: 'globex' });
    });
    const reportingToken = (await walk(server, acme.key, '/v1/reporting?changed_since=0')).token;
    const dealsToken = (await walk(server, acme.key, '/v1/tables/deals/records?changed_since=0')).token;
    const decoded = JSON.parse(Buffer.from(reportingToken, 'base64url').toString()) as unknown[];
    const future = Buffer.from(JSON.stringify([...decoded.slice(0, 3), (decoded[3] as number) + 1, ...decoded.slice(4)])).toString('base64url');
    const cases: [string, string, string][] = [
      ['garbage', '/v1/reporting?changed_since=not-a-token', '/query/changed_since'],
      ['base64 of junk', `/v1/reporting?changed_since=${Buffer.from('[1,2,3]').toString('base64url')}`, '/query/changed_since'],
      ['empty', '/v1/reporting?changed_since=', '/query/changed_since'],
      ['a table token on reporting', `/v1/reporting?changed_since=${dealsToken}`, '/query/changed_since'],
      ['a reporting token on a table', `/v1/tables/deals/records?changed_since=${reportingToken}`, '/query/changed_since'],
      ['a stamp never issued', `/v1/reporting?changed_since=${future}`, '/query/changed_since'],
      ['with offset', '/v1/reporting?changed_since=0&offset=0', '/query/offset'],
      ['with cursor', '/v1/reporting?changed_since=0&cursor=abc', '/query/cursor'],
      ['with limit=0', '/v1/reporting?changed_since=0&limit=0', '/query/limit'],
      ['with a user filter', '/v1/reporting?changed_since=0&user=user0%40acme.example', '/query/user'],
      ['with date filters', '/v1/reporting?changed_since=0&date_from=2026-01-01', '/query/date_from'],
      ['with a plan filter', '/v1/reporting?changed_since=0&plan=Plan', '/query/plan'],
    ];
    for (const [name, path, pointer] of cases) {
      const response = await server.call('GET', path, { key: acme.key });
      assert.equal(response.status, 400, `${name}: ${response.text}`);
      assert.ok(response.body.errors.some((error: { pointer: string }) => error.pointer === pointer), `${name}: ${response.text}`);
    }
    const otherTenant = await server.call('GET', `/v1/reporting?changed_since=${reportingToken}`, { key: globex.key });
    assert.equal(otherTenant.status, 400);
  });
});
