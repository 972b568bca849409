import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { RUNS, UNIVERSES, covers } from '../support/monthModel.js';
import { changedFragments, rewritesInPlace, slotWrites, type NewRow, type SlotRow } from '../../src/domain/bulkPlan.js';
import { renderDimensionFragment } from '../../src/domain/reportingJson.js';
import { periodsOverlap, type Period } from '../../src/domain/periods.js';

/**
 * `slotWrites` plans a whole request at once. Its meaning is writing the items one after the
 * other, each overriding its slot's months (docs/rules.md#bulk-attributions): so, month by month, a table after its writes
 * must hold what the items written in turn leave, for every request whose items of one slot
 * share no month (the others are refused before planning).
 */

const SLOTS = ['a', 'b', 'c'];

/** Rows without a shared month in a slot: later candidates that collide with kept ones are dropped. */
function apart<T extends Period & { slot: string }>(candidates: readonly T[]): T[] {
  const kept: T[] = [];
  for (const candidate of candidates) {
    if (!kept.some((row) => row.slot === candidate.slot && periodsOverlap(row, candidate))) kept.push(candidate);
  }
  return kept;
}

/** Each month of each slot: the payload held, one at most (`undefined`: none). */
function monthByMonth(rows: readonly (Period & { slot: string; payload: string })[], months: readonly number[]): string[] {
  return SLOTS.flatMap((slot) =>
    months.map((m) => {
      const held = rows.filter((row) => row.slot === slot && covers(row, m)).map((row) => row.payload);
      assert.ok(held.length <= 1, `slot ${slot} holds ${held.length} rows in month ${m}`);
      return `${slot}@${m}=${held[0]}`;
    }),
  );
}

/** The items written one after the other, the reference. */
function oneAfterTheOther(stored: readonly SlotRow<string, number>[], items: readonly NewRow<string>[]): (Period & { slot: string; payload: string })[] {
  let rows: (Period & { slot: string; payload: string })[] = [...stored];
  for (const item of items) {
    const cut = (row: Period & { slot: string }) => row.slot === item.slot && periodsOverlap(row, item);
    const remains = rows.filter(cut).flatMap((row) => {
      const pieces: Period[] = [];
      if (item.start !== null && (row.start === null || row.start < item.start)) pieces.push({ start: row.start, end: item.start - 1 });
      if (item.end !== null && (row.end === null || row.end > item.end)) pieces.push({ start: item.end + 1, end: row.end });
      return pieces.map((piece) => ({ ...row, ...piece }));
    });
    rows = [...rows.filter((row) => !cut(row)), ...remains, item];
  }
  return rows;
}

for (const { name: universe, periodArb, monthsFor } of UNIVERSES) {
  const rowArb = fc.record({ slot: fc.constantFrom(...SLOTS), period: periodArb });
  const requestArb = fc
    .record({ stored: fc.array(rowArb, { maxLength: 8 }), items: fc.array(rowArb, { maxLength: 6 }) })
    .map(({ stored, items }) => ({
      stored: apart(stored.map(({ slot, period }, i) => ({ key: i, slot, payload: `stored ${i}`, ...period }))),
      items: apart(items.map(({ slot, period }, i) => ({ slot, payload: `item ${i}`, ...period }))),
    }));

  test(`slotWrites (${universe}): a table after the writes holds what the items written in turn leave`, () => {
    fc.assert(
      fc.property(requestArb, ({ stored, items }) => {
        const writes = slotWrites(stored, items);
        const table = new Map<number, Period & { slot: string; payload: string }>(stored.map((row) => [row.key, row]));
        for (const key of writes.deletes) assert.ok(table.delete(key), `deletes ${key}, which is not there`);
        for (const { key, period } of writes.updates) table.set(key, { ...table.get(key)!, ...period });
        const after = [...table.values(), ...writes.inserts];
        const months = monthsFor([...stored, ...items]);
        assert.deepEqual(monthByMonth(after, months), monthByMonth(oneAfterTheOther(stored, items), months));
      }),
      { numRuns: RUNS },
    );
  });

  // SQLite keys group attributions by user, dimension and start month (migration 27) and carries
  // out the writes in this order (bulkSteps.ts): no step may meet a start its slot still holds.
  test(`slotWrites (${universe}): deletes, then updates, then inserts never meet a start their slot still holds`, () => {
    fc.assert(
      fc.property(requestArb, ({ stored, items }) => {
        const writes = slotWrites(stored, items);
        const rowOf = new Map(stored.map((row) => [row.key, row]));
        const startOf = (slot: string, start: number | null) => `${slot}@${start}`;
        const held = new Set(stored.map((row) => startOf(row.slot, row.start)));
        assert.equal(held.size, stored.length, 'stored rows of a slot share no start');
        for (const key of writes.deletes) held.delete(startOf(rowOf.get(key)!.slot, rowOf.get(key)!.start));
        for (const { key, period } of writes.updates) {
          const row = rowOf.get(key)!;
          held.delete(startOf(row.slot, row.start));
          assert.ok(!held.has(startOf(row.slot, period.start)), `row ${key} moved onto ${startOf(row.slot, period.start)}, still held`);
          held.add(startOf(row.slot, period.start));
        }
        for (const row of writes.inserts) {
          assert.ok(!held.has(startOf(row.slot, row.start)), `an insert at ${startOf(row.slot, row.start)}, still held`);
          held.add(startOf(row.slot, row.start));
        }
      }),
      { numRuns: RUNS },
    );
  });

  test(`slotWrites (${universe}): only rows sharing a month with an item of their slot are written, each once`, () => {
    fc.assert(
      fc.property(requestArb, ({ stored, items }) => {
        const writes = slotWrites(stored, items);
        const written = [...writes.deletes, ...writes.updates.map(({ key }) => key)];
        assert.equal(new Set(written).size, written.length, 'a row written twice');
        for (const row of stored) {
          const touched = items.some((item) => item.slot === row.slot && periodsOverlap(item, row));
          if (!touched) assert.ok(!written.includes(row.key), `row ${row.key} shares no month with an item of its slot`);
        }
        const pieces = writes.inserts.length - items.length;
        assert.ok(pieces >= 0 && pieces <= writes.updates.length * items.length, 'pieces of split rows');
      }),
      { numRuns: RUNS },
    );
  });
}

test('slotWrites: a load of a million rows in one call is planned (an import writes its attributions through it)', () => {
  const incoming: NewRow<number>[] = Array.from({ length: 1_000_000 }, (_, i) => ({ slot: `u${i}`, payload: i, start: 0, end: 0 }));
  const writes = slotWrites<number, number>([], incoming);
  assert.equal(writes.inserts.length, incoming.length);
  assert.equal(writes.inserts.at(-1)?.payload, 999_999);
});

test('changedFragments: a stored fragment with the items written equals one rendered from the periods after them', () => {
  const KEYS = ['region', 'segment', '__proto__'];
  const NAMES = ['EMEA', 'NA', 'Mid "Market"', 'é'];
  const groupArb = fc.record({ dimension: fc.constantFrom(...KEYS), group: fc.constantFrom(...NAMES), start: fc.integer({ min: 0, max: 20 }), length: fc.integer({ min: 0, max: 8 }), open: fc.boolean() });
  type Drawn = { dimension: string; group: string; start: number; length: number; open: boolean };
  const asPeriod = ({ dimension, group, start, length, open }: Drawn) => ({ slot: dimension, payload: group, start, end: open ? null : start + length });
  fc.assert(
    fc.property(fc.array(groupArb, { maxLength: 8 }), fc.array(groupArb, { minLength: 1, maxLength: 4 }), (storedDrawn, itemsDrawn) => {
      const stored = apart(storedDrawn.map(asPeriod));
      const items = apart(itemsDrawn.map(asPeriod));
      const toGroupPeriods = (rows: readonly (Period & { slot: string; payload: string })[]) =>
        rows.map((row) => ({ dimensionKey: row.slot, group: row.payload, start: row.start!, end: row.end }));
      const months = Array.from({ length: 32 }, (_, m) => m);
      const before = months.map((month) => ({ userPk: 1, month, fragment: renderDimensionFragment(KEYS, toGroupPeriods(stored), month) }));
      const after = oneAfterTheOther(stored.map((row, key) => ({ ...row, key })), items);
      const resolved = items.map((item, index) => ({ kind: 'group' as const, user: 'u@x.example', dimension: item.slot, group: item.payload, start: item.start, end: item.end, index, userRow: { pk: 1, email: 'u@x.example' }, dimensionPk: KEYS.indexOf(item.slot) }));
      const changed = new Map(changedFragments(KEYS, before, resolved).map((f) => [f.month, f.fragment]));
      for (const { month, fragment } of before) {
        const want = renderDimensionFragment(KEYS, toGroupPeriods(after), month);
        assert.equal(changed.get(month) ?? fragment, want, `month ${month}`);
        if (want === fragment) assert.ok(!changed.has(month), `month ${month} did not change but is returned`);
      }
    }),
    { numRuns: RUNS },
  );
});

test("changedFragments: over several users' rows, each user's fields change as they do with that user alone", () => {
  const KEYS = ['region', 'segment'];
  const NAMES = ['EMEA', 'NA'];
  const itemArb = fc.record({ user: fc.integer({ min: 1, max: 3 }), dimension: fc.constantFrom(...KEYS), group: fc.constantFrom(...NAMES), start: fc.integer({ min: 0, max: 6 }), length: fc.integer({ min: 0, max: 3 }) });
  const storedArb = fc.array(fc.constantFrom(...NAMES), { minLength: 2, maxLength: 2 });
  fc.assert(
    fc.property(fc.array(itemArb, { maxLength: 8 }), fc.array(storedArb, { minLength: 8, maxLength: 8 }), (drawn, texts) => {
      // The users share their stored texts month by month: rows alike across users and months.
      const byUser = apart(drawn.map((item) => ({ ...item, slot: `${item.user}:${item.dimension}`, end: item.start + item.length })));
      const stored = [1, 2, 3].flatMap((userPk) => texts.map(([region, segment], month) => ({ userPk, month, fragment: `,"region":["${region}"],"segment":["${segment}"]}` })));
      const resolved = byUser.map((item, index) => ({ kind: 'group' as const, user: `u${item.user}@x.example`, dimension: item.dimension, group: item.group, start: item.start, end: item.end, index, userRow: { pk: item.user, email: `u${item.user}@x.example` }, dimensionPk: KEYS.indexOf(item.dimension) }));
      const alone = [1, 2, 3].flatMap((userPk) =>
        changedFragments(KEYS, stored.filter((row) => row.userPk === userPk), resolved.filter((item) => item.userRow.pk === userPk)),
      );
      assert.deepEqual(changedFragments(KEYS, stored, resolved), alone);
    }),
    { numRuns: RUNS },
  );
});

test('an insert at the key of a row it deletes becomes a rewrite of that row; every other write stays as planned', () => {
  const row = (slot: string, start: number | null, end: number | null): NewRow<string> => ({ slot, start, end, payload: `${slot}@${start}` });
  const sameStart = row('a', 3, 5);
  const otherStart = row('a', 6, null);
  const noStart = row('b', null, 2);
  const updates = [{ key: 'c:1', period: { start: 1, end: 2 } }];
  const planned = { deletes: ['a:3', 'a:9', 'b:1'], updates, inserts: [sameStart, otherStart, noStart] };
  const { writes, rewrites } = rewritesInPlace(planned, (key) => key, ({ slot, start }) => (start === null ? undefined : `${slot}:${start}`));
  assert.deepEqual(rewrites, [sameStart]);
  assert.deepEqual(writes, { deletes: ['a:9', 'b:1'], updates, inserts: [otherStart, noStart] });
});
