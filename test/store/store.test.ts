import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { parseMonth } from '../../src/domain/months.js';
import { TenantNotEmpty } from '../../src/store/vocabulary/storeErrors.js';
import type { Principal } from '../../src/store/vocabulary/tenancy.js';
import type { Source } from '../../src/store/vocabulary/readShapes.js';
import type { Store } from '../../src/store/store.js';
import { buildFixture, fixtureMonth } from '../support/fixture.js';
import { shared, tempDatabase, type Scope } from '../support/harness.js';

/**
 * What the `Store` interface promises, asked of the store itself (no server), on the engine of
 * the run: keys, paging, the bulk upsert's all or nothing, loads, sync, discovery and check.
 * Expected values follow from the fixture's rules (fixture.ts), never from a read of the store.
 */
const RECORDS = 37;

async function storeWithFixture(scope: Scope, records = RECORDS) {
  const { store } = await tempDatabase(scope);
  const fixture = await buildFixture(store, { tenant: 'acme', records });
  const principal = (await store.authenticate(fixture.key))!;
  return { store, fixture, principal };
}

/** For the tests that only read. */
const readOnly = shared((scope) => storeWithFixture(scope));

const records = (json: Buffer): { id: string }[] => JSON.parse(`[${json.toString('utf8')}]`);
const recordIds = (json: Buffer) => records(json).map((record) => record.id);
const fixtureIds = (from: number, to: number) => Array.from({ length: Math.max(0, to - from) }, (_, i) => `acme-r${from + i}`);

async function pageOf(store: Store, principal: Principal, source: Source, offset: number, limit: number, cursor?: string) {
  const page = await store.page(principal, source, { offset: BigInt(offset), limit, cursor });
  if (typeof page !== 'object') assert.fail(`page: ${page}`);
  return page;
}

/** The version of the tenant's data now: a principal carries the version its key was looked up at, so the key is looked up anew. */
async function versionOf(store: Store, key: string): Promise<string> {
  return (await store.total((await store.authenticate(key))!, { kind: 'reporting' }))!.version;
}

describe('keys', () => {
  test('a key grants its tenant until it is revoked; listings never show the secret', async (t) => {
    const { store } = await tempDatabase(t);
    const first = await store.createKey('newco');
    const tenant = await store.findTenant('newco');
    assert.ok(tenant, 'createKey creates the tenant');
    assert.deepEqual(await store.authenticate(first.key).then((p) => p?.tenantId), tenant.id);
    assert.equal(await store.authenticate(undefined), undefined);
    assert.equal(await store.authenticate(`${first.key}x`), undefined);
    assert.equal(await store.authenticate(''), undefined);

    const second = await store.createKey('newco');
    assert.notEqual(second.key, first.key);
    const listed = await store.listKeys('newco');
    assert.deepEqual(listed.map((key) => [key.id, key.tenant, key.state]).sort(), [[first.id, 'newco', 'active'], [second.id, 'newco', 'active']].sort());
    assert.ok(!JSON.stringify(await store.listKeys()).includes(first.key), 'no secret in a listing');

    assert.equal(await store.revokeKey(first.id), true);
    assert.equal(await store.authenticate(first.key), undefined);
    assert.equal(await store.revokeKey(first.id), false, 'a revoked key is revoked once');
    assert.equal(await store.revokeKey(second.key), true, 'a key revoked by its whole text');
    assert.equal(await store.authenticate(second.key), undefined);
    assert.equal(await store.revokeKey('no-such-key'), false);
    assert.deepEqual((await store.listKeys('newco')).map((key) => key.state), ['revoked', 'revoked']);
  });
});

describe('paging', () => {
  test('any offset and limit give the records of those positions, and say whether more follow', async () => {
    const { store, principal } = await readOnly();
    const { count, version } = (await store.total(principal, { kind: 'reporting' }))!;
    assert.equal(count, RECORDS);
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: RECORDS + 5 }), fc.integer({ min: 1, max: RECORDS + 5 }), async (offset, limit) => {
        const page = await pageOf(store, principal, { kind: 'reporting' }, offset, limit);
        assert.deepEqual(recordIds(page.json), fixtureIds(offset, Math.min(offset + limit, RECORDS)));
        assert.equal(page.count, Math.max(0, Math.min(limit, RECORDS - offset)));
        assert.equal(page.more, offset + limit < RECORDS);
        assert.equal(page.version, version, 'no write, no new version');
      }),
      { numRuns: 40 },
    );
  });

  test("a walk that follows each page's cursor meets every record once, in order", async () => {
    const { store, principal, fixture } = await readOnly();
    for (const [source, expected] of [
      [{ kind: 'reporting' }, fixtureIds(0, RECORDS)],
      [{ kind: 'tableRecords', table: 'deals' }, Array.from({ length: fixture.deals }, (_, i) => `acme-d${i}`)],
    ] as [Source, string[]][]) {
      const seen: string[] = [];
      let offset = 0;
      let cursor: string | undefined;
      for (;;) {
        const page = await pageOf(store, principal, source, offset, 4, cursor);
        seen.push(...recordIds(page.json));
        if (!page.more) break;
        offset += page.count;
        cursor = page.cursor;
      }
      assert.deepEqual(seen, expected, source.kind);
    }
  });

  test('an unknown table, and a cursor the store did not issue, are told apart from an empty page', async () => {
    const { store, principal } = await readOnly();
    assert.equal(await store.total(principal, { kind: 'tableRecords', table: 'nope' }), undefined);
    assert.equal(await store.page(principal, { kind: 'tableRecords', table: 'nope' }, { offset: 0n, limit: 5 }), 'unknownTable');
    for (const source of [{ kind: 'groupAttributions' }, { kind: 'reporting', user: 'user0@acme.example' }] as Source[]) {
      assert.equal(await store.page(principal, source, { offset: 4n, limit: 5, cursor: 'not-a-cursor' }), 'badCursor', source.kind);
    }
  });
});

describe('the bulk upsert', () => {
  const group = (user: string, group: string, start: string, end: string | null) =>
    ({ kind: 'group', user, dimension: 'segment', group, start: parseMonth(start)!, end: end === null ? null : parseMonth(end)! }) as const;

  test('all of a batch is written, or none of it, and only a write gives a new version', async (t) => {
    const { store, principal, fixture } = await storeWithFixture(t);
    const listing = async () => {
      const page = await pageOf(store, principal, { kind: 'groupAttributions', dimension: 'segment' }, 0, 100);
      return page.json.toString('utf8');
    };
    const before = { version: await versionOf(store, fixture.key), listing: await listing() };
    assert.equal(before.listing, '', 'nobody has a segment in the fixture');

    const refused = await store.bulkUpsert(principal, [group('user1@acme.example', 'SMB', '2026-01', null), group('nobody@acme.example', 'SMB', '2026-01', null)]);
    assert.ok('broken' in refused, 'an unknown user breaks the batch');
    assert.equal(await listing(), before.listing, 'the valid item of a refused batch is not written');
    assert.equal(await versionOf(store, fixture.key), before.version);

    const written = await store.bulkUpsert(principal, [group('USER1@acme.example', 'SMB', '2026-01', null), group('user2@acme.example', 'ENT', '2026-02', '2026-03')]);
    assert.ok('written' in written);
    assert.deepEqual(written.written.map((item) => item.user), ['user1@acme.example', 'user2@acme.example'], 'the e-mails as stored');
    const after = records(Buffer.from(await listing())) as unknown as { user: string; group: string; start_date: string; end_date: string | null }[];
    assert.deepEqual(
      after.map(({ user, group, start_date, end_date }) => [user, group, start_date, end_date]).sort(),
      [['user1@acme.example', 'SMB', '2026-01', null], ['user2@acme.example', 'ENT', '2026-02', '2026-03']],
    );
    assert.notEqual(await versionOf(store, fixture.key), before.version);
  });

  test("a sync after a write returns exactly the records whose dimensions it changed", async (t) => {
    const { store, principal } = await storeWithFixture(t);
    const first = await store.changes(principal, { kind: 'reporting' }, { since: '0', limit: 2000 });
    if (typeof first !== 'object') assert.fail(String(first));
    assert.deepEqual(recordIds(first.json).sort(), fixtureIds(0, RECORDS).sort());
    assert.ok(first.syncToken && !first.next);

    // u0 holds the records i with i % 3 == 0; 2026-01 holds those with i % 12 == 0.
    const month = fixtureMonth(0);
    assert.ok('written' in (await store.bulkUpsert(principal, [group('user0@acme.example', 'SMB', month, month)])));
    const second = await store.changes(principal, { kind: 'reporting' }, { since: first.syncToken, limit: 2000 });
    if (typeof second !== 'object') assert.fail(String(second));
    const expected = fixtureIds(0, RECORDS).filter((_, i) => i % 3 === 0 && i % 12 === 0);
    assert.deepEqual(recordIds(second.json).sort(), expected.sort());
    assert.equal(await store.changes(principal, { kind: 'reporting' }, { since: 'not-a-token', limit: 10 }), 'badToken');
  });
});

describe('loads', () => {
  test('a load that fails leaves nothing, not even its tenant', async (t) => {
    const { store } = await tempDatabase(t);
    await assert.rejects(
      store.loadTenant('halfway', {}, async (writer) => {
        await writer.defineMetricsAndDimensions(['new_arr'], ['region']);
        throw new Error('the dataset ends early');
      }),
      /the dataset ends early/,
    );
    assert.equal(await store.findTenant('halfway'), undefined);
    assert.equal(await store.readTenant('halfway', async () => 'read'), undefined);
  });

  test('a load that must find its tenant empty refuses one with data, and changes nothing', async (t) => {
    const { store, principal, fixture } = await storeWithFixture(t);
    const version = await versionOf(store, fixture.key);
    await assert.rejects(
      store.loadTenant('acme', { mustBeEmpty: true }, async (writer) => writer.finish()),
      (error) => error instanceof TenantNotEmpty,
    );
    assert.equal(await versionOf(store, fixture.key), version);
    assert.equal((await store.total(principal, { kind: 'reporting' }))!.count, RECORDS);
  });
});

describe('discovery and check', () => {
  test("the tenant's tables with their fields and counts, its metrics and dimensions", async () => {
    const { store, principal, fixture } = await readOnly();
    const tables = await store.tables(principal);
    assert.deepEqual(
      tables.map((table) => ({ key: table.key, name: table.name, fields: table.fields.map((field) => [field.key, field.type]), count: table.recordCount })),
      [{ key: 'deals', name: 'Deals', fields: [['name', 'string'], ['owner_id', 'user'], ['close_date', 'datetime'], ['amount', 'amount']], count: fixture.deals }],
    );
    assert.deepEqual(await store.tables(principal, 'nope'), []);
    const schema = await store.reportingSchema(principal);
    assert.deepEqual(schema.metricKeys, ['new_arr']);
    assert.deepEqual(
      schema.dimensions.map((dimension) => [dimension.key, [...dimension.groups].sort()]),
      [['region', ['APAC', 'EMEA']], ['segment', []]],
    );
  });

  test('check finds every invariant holding on data written through the store', async () => {
    const { store } = await readOnly();
    assert.deepEqual(await store.check(), []);
  });
});
