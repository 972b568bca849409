import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Store } from '../../src/store/store.js';
import type { ReportingLineInput } from '../../src/store/vocabulary/tenantWriter.js';
import { fixtureLine, fixtureUser } from '../support/fixture.js';
import { startTestServer, type TestServer } from '../support/harness.js';

/**
 * Filters of GET /v1/reporting (issue 14, part 2): `user`, `date_from`, `date_to`, `plan`,
 * combined; `limit=0` counts; `next` carries them and a cursor that seeks by key. What a
 * filtered read must return is computed here from the unfiltered read, never from the code.
 */
type Row = { id: string; date: string; plan: string; user: { email: string } };

const USERS = 4;
const PLANS = ['AE 2026', 'SE 2026', 'AE 2027'];
/** Dates around month ends and a year end, so that ranges cut inside months and across them. */
const DATES = ['2025-12-31', '2026-01-01', '2026-01-15', '2026-01-31', '2026-02-01', '2026-02-28', '2026-03-01', '2026-03-31', '2026-06-15', '2027-01-01'];

/** Record i of tenant `acme`: a user, a date and a plan that vary with i, not in date order. */
const line = (i: number): ReportingLineInput => ({
  ...fixtureLine('acme', i, USERS),
  user_id: `u${(i * 7) % USERS}`,
  date: DATES[(i * 3) % DATES.length]!,
  plan: PLANS[i % PLANS.length]!,
});

async function load(store: Store, tenant: string, lines: ReportingLineInput[]) {
  await store.loadTenant(tenant, {}, async (writer) => {
    await writer.defineMetricsAndDimensions(['new_arr'], ['region']);
    // E-mails in mixed case: the filter must ignore case. Both tenants share the domain.
    await writer.upsertUsers(Array.from({ length: USERS }, (_, i) => ({ ...fixtureUser(tenant, i, 'shared.example'), email: `User${i}@Shared.example` })));
    await writer.upsertReportingRecords(lines);
    await writer.finish();
  });
  return (await store.createKey(tenant)).key;
}

/** Every record of a walk by `next` from `path`. */
async function walk(server: TestServer, key: string, path: string): Promise<{ rows: Row[]; nexts: string[] }> {
  const rows: Row[] = [];
  const nexts: string[] = [];
  for (let target: string | undefined = path; target !== undefined; ) {
    const page = await server.call('GET', target, { key });
    assert.equal(page.status, 200, `${target}: ${page.text}`);
    rows.push(...page.body.data);
    nexts.push(...(page.body.next ? [page.body.next] : []));
    target = page.body.next?.slice(server.url.length);
  }
  return { rows, nexts };
}

interface Filter {
  user?: string;
  date_from?: string;
  date_to?: string;
  plan?: string;
}

const matches = (filter: Filter) => (row: Row) =>
  (filter.user === undefined || row.user.email.toLowerCase() === filter.user.toLowerCase()) &&
  (filter.date_from === undefined || row.date >= filter.date_from) &&
  (filter.date_to === undefined || row.date <= filter.date_to) &&
  (filter.plan === undefined || row.plan === filter.plan);

const query = (filter: Filter, limit: number) => new URLSearchParams({ ...filter, limit: String(limit) } as Record<string, string>).toString();

test('filters of GET /v1/reporting', async (t) => {
  let key!: string;
  let otherKey!: string;
  const server = await startTestServer(t, {}, async (store) => {
    key = await load(store, 'acme', Array.from({ length: 90 }, (_, i) => line(i)));
    otherKey = await load(store, 'globex', Array.from({ length: 30 }, (_, i) => ({ ...line(i), id: `globex-${i}` })));
  });
  const all = (await walk(server, key, '/v1/reporting?limit=2000')).rows;
  assert.equal(all.length, 90);

  await t.test('a filtered walk by next yields exactly the matching records of a full read, in order (property)', async () => {
    const userArb = fc.integer({ min: 0, max: USERS }).chain((i) => fc.constantFrom(`user${i}@shared.example`, `USER${i}@SHARED.EXAMPLE`, `User${i}@Shared.example`));
    const dateArb = fc.constantFrom(...DATES, '2026-01-10', '2026-02-27', '2020-01-01', '2030-12-31');
    const filterArb = fc
      .record({ user: userArb, date_from: dateArb, date_to: dateArb, plan: fc.constantFrom(...PLANS, 'No such plan') }, { requiredKeys: [] })
      .filter((f) => Object.keys(f).length > 0 && !(f.date_from !== undefined && f.date_to !== undefined && f.date_from > f.date_to));
    await fc.assert(
      fc.asyncProperty(filterArb, fc.integer({ min: 1, max: 9 }), async (filter, limit) => {
        const expected = all.filter(matches(filter));
        const { rows, nexts } = await walk(server, key, `/v1/reporting?${query(filter, limit)}`);
        assert.deepEqual(rows.map((r) => r.id), expected.map((r) => r.id));
        for (const next of nexts) {
          const carried = new URL(next).searchParams;
          for (const [name, value] of Object.entries(filter)) assert.equal(carried.get(name), value, `next carries ${name}`);
          assert.ok(carried.get('cursor'), 'next carries a cursor');
        }
        const total = await server.call('GET', `/v1/reporting?${query(filter, 0)}`, { key });
        assert.deepEqual(total.body, { count: expected.length, data: [] });
      }),
      { numRuns: 60 },
    );
  });

  await t.test('a raw offset without the cursor gets the same page as next', async () => {
    const filter = { user: 'user1@shared.example', date_from: '2026-01-01' };
    const { nexts } = await walk(server, key, `/v1/reporting?${query(filter, 3)}`);
    assert.ok(nexts.length >= 2);
    for (const next of nexts) {
      const url = new URL(next);
      const viaCursor = await server.call('GET', `${url.pathname}${url.search}`, { key });
      url.searchParams.delete('cursor');
      const viaOffset = await server.call('GET', `${url.pathname}${url.search}`, { key });
      assert.deepEqual(viaOffset.body.data, viaCursor.body.data);
    }
  });

  await t.test("another tenant's records never show, though its users share the e-mails", async () => {
    const { rows } = await walk(server, otherKey, `/v1/reporting?user=user1@shared.example&limit=4`);
    assert.ok(rows.length > 0);
    assert.ok(rows.every((r) => r.id.startsWith('globex-')));
    const nobody = await server.call('GET', '/v1/reporting?user=nobody@shared.example', { key });
    assert.deepEqual(nobody.body, { count: 0, data: [] });
  });

  await t.test('bad input is a 400 with a pointer at the parameter', async () => {
    const cases: [string, string][] = [
      ['usr=user1@shared.example', '/query/usr'],
      ['user=not-an-email', '/query/user'],
      ['date_from=2026-13-01', '/query/date_from'],
      ['date_to=2026-02-30', '/query/date_to'],
      ['date_from=20260101', '/query/date_from'],
      ['date_from=2026-1-01', '/query/date_from'],
      ['date_from=2026-03-02&date_to=2026-03-01', '/query/date_from'],
      ['plan=', '/query/plan'],
      ['user=user1@shared.example&cursor=bm90IG91cnM', '/query/cursor'],
    ];
    for (const [search, pointer] of cases) {
      const answer = await server.call('GET', `/v1/reporting?${search}`, { key });
      assert.equal(answer.status, 400, search);
      assert.ok(answer.body.errors.some((e: { pointer: string }) => e.pointer === pointer), `${search}: ${answer.text}`);
    }
  });
});

test('a filtered walk by next seeks past its last record: a record that leaves the filter before the cursor shifts nothing', async (t) => {
  let key!: string;
  const server = await startTestServer(t, {}, async (store) => {
    key = await load(store, 'acme', Array.from({ length: 40 }, (_, i) => ({ ...line(i), user_id: `u${i % 2}` })));
  });
  const first = await server.call('GET', '/v1/reporting?user=user0@shared.example&limit=5', { key });
  assert.equal(first.body.count, 5);
  const before = (await walk(server, key, '/v1/reporting?user=user0@shared.example&limit=2000')).rows.map((r) => r.id);
  // The first record of the page read moves to the other user: it keeps its position.
  await server.store.loadTenant('acme', {}, async (writer) => {
    await writer.upsertReportingRecords([{ ...line(0), user_id: 'u1' }]);
    await writer.finish();
  });
  const rest = await walk(server, key, first.body.next.slice(server.url.length));
  assert.deepEqual(rest.rows.map((r) => r.id), before.slice(5), 'the walk goes on after the last record read, none skipped');
});

test('a plan holding U+0000 or quotes is found by its exact name; a name holding U+0000 breaks no date filter', async (t) => {
  const plans = ['AE\u0000 2026', 'AE "2026"', 'AE 2026'];
  let key!: string;
  const server = await startTestServer(t, {}, async (store) => {
    key = await load(store, 'acme', Array.from({ length: 30 }, (_, i) => ({ ...line(i), plan: plans[i % 3]! })));
    await store.loadTenant('acme', {}, async (writer) => {
      await writer.upsertUsers([{ ...fixtureUser('acme', 1, 'shared.example'), email: 'User1@Shared.example', name: 'Ada\u0000Lovelace' }]);
      await writer.finish();
    });
  });
  for (const plan of plans) {
    const { rows } = await walk(server, key, `/v1/reporting?${new URLSearchParams({ plan, limit: '4' })}`);
    assert.deepEqual(rows.map((r) => r.plan), Array(10).fill(plan));
  }
  const all = (await walk(server, key, '/v1/reporting')).rows;
  assert.ok(all.some((r) => (r.user as { name?: string }).name === 'Ada\u0000Lovelace'));
  const filter = { date_from: '2026-01-15', date_to: '2026-03-01' };
  const { rows } = await walk(server, key, `/v1/reporting?${query(filter, 4)}`);
  assert.deepEqual(rows.map((r) => r.id), all.filter(matches(filter)).map((r) => r.id));
});
