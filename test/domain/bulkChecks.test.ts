import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { RUNS, UNIVERSES, covers } from '../support/monthModel.js';
import { FIRST_MONTH, LAST_MONTH, parseMonth } from '../../src/domain/months.js';
import type { Period } from '../../src/domain/periods.js';
import { firstManagerCycle, firstPayloadOverlap, type ManagerCycle, type ManagerEdge, type PayloadOverlap, type SlotPeriod } from '../../src/domain/bulkChecks.js';

/** `'2026-03'` as a month index, `null` as an open end. */
const month = (text: string | null) => (text === null ? null : parseMonth(text)!);
const period = (start: string | null, end: string | null): Period => ({ start: month(start), end: month(end) });
const item = (slot: string, start: string | null, end: string | null): SlotPeriod => ({ slot, ...period(start, end) });
const edge = (user: number, manager: number, start: string | null, end: string | null): ManagerEdge => ({
  user,
  manager,
  ...period(start, end),
});

test('firstPayloadOverlap', async (t) => {
  const cases: [string, { given: SlotPeriod[]; want: PayloadOverlap | undefined }][] = [
    ['no items', { given: [], want: undefined }],
    ['same months, different slots', { given: [item('a', '2026-01', null), item('b', '2026-01', null)], want: undefined }],
    ['adjacent months', { given: [item('a', '2026-04', null), item('a', '2026-01', '2026-03')], want: undefined }],
    ['same period', { given: [item('a', '2026-01', '2026-03'), item('a', '2026-01', '2026-03')], want: { index: 1, otherIndex: 0 } }],
    ['one shared month', { given: [item('a', '2026-03', '2026-05'), item('a', '2026-01', '2026-03')], want: { index: 1, otherIndex: 0 } }],
    ['earlier item without end', { given: [item('a', '2025-01', null), item('a', '2030-01', '2030-02')], want: { index: 1, otherIndex: 0 } }],
    ['since-always manager item', { given: [item('m', '2026-01', null), item('m', null, '2026-01')], want: { index: 1, otherIndex: 0 } }],
    ['names the first later item that collides', {
      given: [item('a', '2026-01', '2026-03'), item('b', '2026-01', null), item('a', '2026-02', '2026-02'), item('b', '2027-01', null)],
      want: { index: 2, otherIndex: 0 },
    }],
    ['names the colliding earlier item that starts first', {
      given: [item('a', '2026-05', '2026-06'), item('a', '2026-01', '2026-02'), item('a', '2026-07', null), item('a', '2026-02', '2026-12')],
      want: { index: 3, otherIndex: 1 },
    }],
  ];
  for (const [name, { given, want }] of cases) await t.test(name, () => assert.deepEqual(firstPayloadOverlap(given), want));
});

test('firstManagerCycle', async (t) => {
  const cases: [string, { given: ManagerEdge[]; want: ManagerCycle | undefined }][] = [
    ['no edges', { given: [], want: undefined }],
    ['own manager', {
      given: [edge(1, 2, null, '2026-02'), edge(1, 1, '2026-03', '2026-05')],
      want: { users: [1], during: period('2026-03', '2026-05'), month: month('2026-03') },
    }],
    ['two users, only where their periods overlap', {
      given: [edge(1, 2, '2026-01', '2026-06'), edge(2, 1, '2026-04', null)],
      want: { users: [2, 1], during: period('2026-04', '2026-06'), month: month('2026-04') },
    }],
    ['a chain is not a cycle', { given: [edge(1, 2, null, null), edge(2, 3, null, null), edge(4, 3, '2026-01', null)], want: undefined }],
    ['adjacent months do not meet', { given: [edge(1, 2, '2026-01', '2026-03'), edge(2, 1, '2026-04', null)], want: undefined }],
    ['three users since always', {
      given: [edge(1, 2, null, null), edge(2, 3, null, '2025-12'), edge(3, 1, null, null)],
      want: { users: [1, 2, 3], during: period(null, '2025-12'), month: month('2025-12') },
    }],
    ['every month', { given: [edge(1, 2, null, null), edge(2, 1, null, null)], want: { users: [1, 2], during: period(null, null), month: null } }],
    ['closed by a later edge', {
      given: [edge(1, 2, '2026-01', null), edge(2, 3, '2026-01', null), edge(3, 1, '2026-06', '2026-08'), edge(9, 9, '2027-01', null)],
      want: { users: [3, 1, 2], during: period('2026-06', '2026-08'), month: month('2026-06') },
    }],
    ['the cycle ends before another boundary', {
      given: [edge(1, 1, '2026-01', '2026-01'), edge(2, 3, '2026-05', null)],
      want: { users: [1], during: period('2026-01', '2026-01'), month: month('2026-01') },
    }],
    ['an empty period holds no month', { given: [edge(1, 1, '2026-05', '2026-04')], want: undefined }],
    // At the edges of the wire range: 0000-01 is the first month, 9999-12 the last; the cycle's month is one of them.
    ['since always, beside an edge from 0000-01: every month', {
      given: [edge(1, 2, null, null), edge(2, 1, null, null), edge(3, 1, '0000-01', null)],
      want: { users: [1, 2], during: period(null, null), month: null },
    }],
    ['from 0000-01 with no end: every month', { given: [edge(1, 2, '0000-01', null), edge(2, 1, '0000-01', '9999-12')], want: { users: [1, 2], during: period(null, null), month: null } }],
    ['in 0000-01 only', { given: [edge(1, 2, null, '0000-01'), edge(2, 1, '0000-01', '0000-01')], want: { users: [1, 2], during: period(null, '0000-01'), month: month('0000-01') } }],
    ['in 9999-12 only', { given: [edge(1, 2, '9999-12', null), edge(2, 1, '9999-12', '9999-12')], want: { users: [1, 2], during: period('9999-12', null), month: month('9999-12') } }],
    ['edges holding no month of the wire are skipped', {
      given: [{ user: 1, manager: 1, start: null, end: FIRST_MONTH - 1 }, { user: 2, manager: 2, start: LAST_MONTH + 1, end: null }],
      want: undefined,
    }],
  ];
  for (const [name, { given, want }] of cases) await t.test(name, () => assert.deepEqual(firstManagerCycle(given), want));

  await t.test('two managers of one user in one month (stored rows may overlap): no throw, either can close a cycle', () => {
    assert.equal(firstManagerCycle([edge(1, 2, '2026-01', null), edge(1, 3, '2026-06', '2026-06')]), undefined);
    assert.deepEqual(firstManagerCycle([edge(1, 2, '2026-01', null), edge(1, 3, '2026-06', '2026-06'), edge(3, 1, '2026-06', null)]), {
      users: [1, 3],
      during: period('2026-06', '2026-06'),
      month: month('2026-06'),
    });
  });
});

// ---- Properties, checked against the month models of test/support/monthModel.ts ----

/** Whether the managers in month `m` form a cycle: repeatedly drops users nobody left points at. */
function modelHasCycleAt(edges: readonly ManagerEdge[], m: number): boolean {
  let live = edges.filter((e) => covers(e, m));
  for (;;) {
    const pointedAt = new Set(live.map((e) => e.manager));
    const kept = live.filter((e) => pointedAt.has(e.user));
    if (kept.length === live.length) return live.length > 0;
    live = kept;
  }
}

for (const { name: universe, periodArb, monthsFor } of UNIVERSES) {
  test(`firstPayloadOverlap (${universe}) agrees with comparing every pair`, () => {
    const itemsArb = fc.array(
      fc.record({ slot: fc.constantFrom('a', 'b', 'c'), period: periodArb }).map(({ slot, period: p }) => ({ slot, ...p })),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(itemsArb, (items) => {
        const months = monthsFor(items);
        const shareMonth = (x: SlotPeriod, y: SlotPeriod) => x.slot === y.slot && months.some((m) => covers(x, m) && covers(y, m));
        let want: PayloadOverlap | undefined;
        for (const [index, later] of items.entries()) {
          const others = items
            .slice(0, index)
            .map((earlier, i) => ({ earlier, i }))
            .filter(({ earlier }) => shareMonth(earlier, later));
          others.sort((x, y) => (x.earlier.start ?? months[0]!) - (y.earlier.start ?? months[0]!));
          if (others[0]) {
            want = { index, otherIndex: others[0].i };
            break;
          }
        }
        assert.deepEqual(firstPayloadOverlap(items), want);
      }),
      { numRuns: RUNS },
    );
  });

  /** Edges between 5 users, rarely self-managing; an edge whose user already has a manager in one of its months is dropped. */
  const edgesArb = fc
    .array(
      fc.record({ user: fc.integer({ min: 1, max: 5 }), hop: fc.integer({ min: 0, max: 12 }), period: periodArb }),
      { maxLength: 9 },
    )
    .map((candidates) => {
      const edges: ManagerEdge[] = [];
      for (const { user, hop, period: p } of candidates) {
        const manager = hop === 0 ? user : ((user + (hop % 4)) % 5) + 1;
        const managed = monthsFor([p, ...edges]).some((m) => covers(p, m) && edges.some((e) => e.user === user && covers(e, m)));
        if (!managed) edges.push({ user, manager, ...p });
      }
      return edges;
    });

  /** The model's first month with a cycle is where `during` starts; its month is a month of the cycle the wire can write. */
  const assertAgreesWithModel = (edges: readonly ManagerEdge[]): void => {
    const found = firstManagerCycle(edges);
    const months = monthsFor(edges);
    const firstCyclicMonth = months.find((m) => modelHasCycleAt(edges, m));
    if (firstCyclicMonth === undefined) return assert.equal(found, undefined);
    assert.ok(found, `a cycle from month ${firstCyclicMonth}`);
    assert.equal(found.during.start ?? months[0], firstCyclicMonth, 'the earliest months with a cycle');
    const allTime = found.during.start === null && found.during.end === null;
    assert.ok(found.month === null ? allTime : covers(found.during, found.month), 'month is one of during');
    assert.ok(found.month === null || (found.month >= FIRST_MONTH && found.month <= LAST_MONTH), `month ${found.month} is a month of the wire`);
    assert.equal(new Set(found.users).size, found.users.length, 'no user twice');
    for (const m of months.filter((m) => covers(found.during, m))) {
      for (const [i, user] of found.users.entries()) {
        const manager = found.users[(i + 1) % found.users.length];
        assert.ok(edges.some((e) => e.user === user && e.manager === manager && covers(e, m)), `${user} -> ${manager} in ${m}`);
      }
    }
  };

  test(`firstManagerCycle (${universe}) agrees with a month-by-month walk`, () => {
    fc.assert(fc.property(edgesArb, assertAgreesWithModel), { numRuns: RUNS });
  });

  test(`firstManagerCycle (${universe}) agrees with the model when users have several managers at once`, () => {
    const anyEdgesArb = fc.array(
      fc.record({ user: fc.integer({ min: 1, max: 5 }), manager: fc.integer({ min: 1, max: 5 }), period: periodArb }),
      { maxLength: 9 },
    ).map((candidates) => candidates.map(({ user, manager, period: p }) => ({ user, manager, ...p })));
    fc.assert(fc.property(anyEdgesArb, assertAgreesWithModel), { numRuns: RUNS });
  });
}
