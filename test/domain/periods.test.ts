import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { RUNS, UNIVERSES, covers } from '../support/monthModel.js';
import { FIRST_MONTH, LAST_MONTH, parseMonth } from '../../src/domain/months.js';
import { applyOverride, applyUpserts, holdsWireMonth, periodContains, periodIntersection, periodProblem, periodsOverlap, subtractPeriod, type Override, type Period } from '../../src/domain/periods.js';

/** `'2026-03'` as a month index, `null` as an open end. */
const month = (text: string | null) => (text === null ? null : parseMonth(text)!);
const period = (start: string | null, end: string | null): Period => ({ start: month(start), end: month(end) });
const row = (group: string, start: string | null, end: string | null) => ({ group, ...period(start, end) });
type Row = ReturnType<typeof row>;

test('periodProblem', async (t) => {
  const cases: [string, { given: Period; want: string | undefined }][] = [
    ['start after end', { given: period('2026-04', '2026-03'), want: 'start_date is after end_date' }],
    ['one month', { given: period('2026-03', '2026-03'), want: undefined }],
    ['no end', { given: period('2026-03', null), want: undefined }],
    ['since always', { given: period(null, '2026-03'), want: undefined }],
  ];
  for (const [name, { given, want }] of cases) await t.test(name, () => assert.equal(periodProblem(given), want));
});

test('periodsOverlap and periodContains', async (t) => {
  const cases: [string, { given: [Period, Period]; want: boolean }][] = [
    ['adjacent months', { given: [period('2026-01', '2026-03'), period('2026-04', null)], want: false }],
    ['one shared month', { given: [period('2026-01', '2026-03'), period('2026-03', null)], want: true }],
    ['inside', { given: [period('2026-01', '2026-12'), period('2026-05', '2026-05')], want: true }],
    ['both open', { given: [period(null, '2026-01'), period('2025-06', null)], want: true }],
    ['since always before', { given: [period(null, '2025-12'), period('2026-01', null)], want: false }],
  ];
  for (const [name, { given, want }] of cases) {
    await t.test(name, () => {
      assert.equal(periodsOverlap(...given), want);
      assert.equal(periodsOverlap(given[1], given[0]), want);
    });
  }
  assert.equal(periodContains(period(null, null), 0), true);
  assert.equal(periodContains(period('2026-01', '2026-03'), month('2026-04')!), false);
  assert.equal(periodContains(period('2026-01', null), month('2026-01')!), true);
});

test('holdsWireMonth: a period holds a month of 0000-01..9999-12', async (t) => {
  const cases: [string, { given: Period; want: boolean }][] = [
    ['every month', { given: period(null, null), want: true }],
    ['since always up to 0000-01', { given: period(null, '0000-01'), want: true }],
    ['9999-12 with no end', { given: period('9999-12', null), want: true }],
    ['0000-01 to 9999-12', { given: period('0000-01', '9999-12'), want: true }],
    ['since always up to the month before 0000-01', { given: { start: null, end: FIRST_MONTH - 1 }, want: false }],
    ['from the month after 9999-12', { given: { start: LAST_MONTH + 1, end: null }, want: false }],
    ['start after end', { given: period('2026-04', '2026-03'), want: false }],
  ];
  for (const [name, { given, want }] of cases) await t.test(name, () => assert.equal(holdsWireMonth(given), want));
});

test('periodIntersection', async (t) => {
  const cases: [string, { given: [Period, Period]; want: Period | undefined }][] = [
    ['apart', { given: [period('2026-01', '2026-03'), period('2026-04', null)], want: undefined }],
    ['one shared month', { given: [period('2026-01', '2026-03'), period('2026-03', null)], want: period('2026-03', '2026-03') }],
    ['inside', { given: [period('2026-01', '2026-12'), period('2026-05', '2026-06')], want: period('2026-05', '2026-06') }],
    ['both open on opposite sides', { given: [period(null, '2026-01'), period('2025-06', null)], want: period('2025-06', '2026-01') }],
    ['both since always', { given: [period(null, '2026-01'), period(null, '2025-06')], want: period(null, '2025-06') }],
    ['every month and no end', { given: [period(null, null), period('2025-06', null)], want: period('2025-06', null) }],
  ];
  for (const [name, { given, want }] of cases) {
    await t.test(name, () => {
      assert.deepEqual(periodIntersection(...given), want);
      assert.deepEqual(periodIntersection(given[1], given[0]), want);
    });
  }
});

test('applyOverride: each shape of cut', async (t) => {
  const cases: [string, { given: { stored: Row[]; incoming: Period }; want: Override<Row> }][] = [
    ['trim at the start edge', {
      given: { stored: [row('a', '2026-01', '2026-06')], incoming: period('2025-11', '2026-02') },
      want: { kept: [], changed: [{ before: row('a', '2026-01', '2026-06'), after: [period('2026-03', '2026-06')] }] },
    }],
    ['trim at the end edge', {
      given: { stored: [row('a', '2026-01', '2026-06')], incoming: period('2026-05', '2026-09') },
      want: { kept: [], changed: [{ before: row('a', '2026-01', '2026-06'), after: [period('2026-01', '2026-04')] }] },
    }],
    ['split in two', {
      given: { stored: [row('a', '2026-01', '2026-12')], incoming: period('2026-04', '2026-06') },
      want: { kept: [], changed: [{ before: row('a', '2026-01', '2026-12'), after: [period('2026-01', '2026-03'), period('2026-07', '2026-12')] }] },
    }],
    ['delete', {
      given: { stored: [row('a', '2026-03', '2026-05')], incoming: period('2026-01', '2026-12') },
      want: { kept: [], changed: [{ before: row('a', '2026-03', '2026-05'), after: [] }] },
    }],
    ['exact replace', {
      given: { stored: [row('a', '2026-03', '2026-05')], incoming: period('2026-03', '2026-05') },
      want: { kept: [], changed: [{ before: row('a', '2026-03', '2026-05'), after: [] }] },
    }],
    ['open-ended stored period split', {
      given: { stored: [row('a', '2026-01', null)], incoming: period('2026-04', '2026-06') },
      want: { kept: [], changed: [{ before: row('a', '2026-01', null), after: [period('2026-01', '2026-03'), period('2026-07', null)] }] },
    }],
    ['open-ended new period trims a finite one', {
      given: { stored: [row('a', '2026-01', '2026-12')], incoming: period('2026-07', null) },
      want: { kept: [], changed: [{ before: row('a', '2026-01', '2026-12'), after: [period('2026-01', '2026-06')] }] },
    }],
    ['open-ended new period over an open-ended one', {
      given: { stored: [row('a', '2026-01', null), row('b', '2027-01', '2027-02')], incoming: period('2026-07', null) },
      want: { kept: [], changed: [
        { before: row('a', '2026-01', null), after: [period('2026-01', '2026-06')] },
        { before: row('b', '2027-01', '2027-02'), after: [] },
      ] },
    }],
    ['since-always manager period split', {
      given: { stored: [row('m', null, null)], incoming: period('2026-04', '2026-06') },
      want: { kept: [], changed: [{ before: row('m', null, null), after: [period(null, '2026-03'), period('2026-07', null)] }] },
    }],
    ['since-always new period trims the start', {
      given: { stored: [row('m', '2026-01', '2026-06')], incoming: period(null, '2026-03') },
      want: { kept: [], changed: [{ before: row('m', '2026-01', '2026-06'), after: [period('2026-04', '2026-06')] }] },
    }],
    // At the edges of the wire range: a piece holding no month from 0000-01 to 9999-12 is no piece.
    ['since always cut from 0000-01: nothing is left before it', { given: { stored: [row('m', null, null)], incoming: period('0000-01', '0000-02') }, want: { kept: [], changed: [{ before: row('m', null, null), after: [period('0000-03', null)] }] } }],
    ['since always up to 0000-01, cut there: deleted', { given: { stored: [row('m', null, '0000-01')], incoming: period('0000-01', '0000-01') }, want: { kept: [], changed: [{ before: row('m', null, '0000-01'), after: [] }] } }],
    ['no end, cut through 9999-12: nothing is left after it', { given: { stored: [row('a', '2026-01', null)], incoming: period('9999-11', '9999-12') }, want: { kept: [], changed: [{ before: row('a', '2026-01', null), after: [period('2026-01', '9999-10')] }] } }],
    ['9999-12 with no end, cut there: deleted', { given: { stored: [row('a', '9999-12', null)], incoming: period('9999-12', '9999-12') }, want: { kept: [], changed: [{ before: row('a', '9999-12', null), after: [] }] } }],
    ['every month of the wire over since always with no end: deleted', { given: { stored: [row('m', null, null)], incoming: period('0000-01', '9999-12') }, want: { kept: [], changed: [{ before: row('m', null, null), after: [] }] } }],
    ['the first month alone is kept', { given: { stored: [row('m', null, null)], incoming: period('0000-02', null) }, want: { kept: [], changed: [{ before: row('m', null, null), after: [period(null, '0000-01')] }] } }],
    ['the last month alone is kept', { given: { stored: [row('m', null, null)], incoming: period(null, '9999-11') }, want: { kept: [], changed: [{ before: row('m', null, null), after: [period('9999-12', null)] }] } }],
    ['since always up to 0000-01 trims a start at 0000-01', { given: { stored: [row('m', '0000-01', null)], incoming: period(null, '0000-01') }, want: { kept: [], changed: [{ before: row('m', '0000-01', null), after: [period('0000-02', null)] }] } }],
    ['no overlap: unchanged', {
      given: { stored: [row('a', '2025-01', '2025-12')], incoming: period('2026-01', null) },
      want: { kept: [row('a', '2025-01', '2025-12')], changed: [] },
    }],
    ['adjacent months do not overlap', {
      given: { stored: [row('a', '2026-01', '2026-03'), row('b', '2026-07', null)], incoming: period('2026-04', '2026-06') },
      want: { kept: [row('a', '2026-01', '2026-03'), row('b', '2026-07', null)], changed: [] },
    }],
    ['several rows: kept, trimmed, deleted', {
      given: {
        stored: [row('a', '2025-01', '2025-06'), row('b', '2025-07', '2025-12'), row('c', '2026-01', '2026-02')],
        incoming: period('2025-10', '2026-05'),
      },
      want: { kept: [row('a', '2025-01', '2025-06')], changed: [
        { before: row('b', '2025-07', '2025-12'), after: [period('2025-07', '2025-09')] },
        { before: row('c', '2026-01', '2026-02'), after: [] },
      ] },
    }],
  ];
  for (const [name, { given, want }] of cases) {
    await t.test(name, () => assert.deepEqual(applyOverride(given.stored, given.incoming), want));
  }
});

// ---- Properties, checked against the month models of test/support/monthModel.ts ----

/** A period the wire form can write: each end open or a month of 0000-01..9999-12, and at least one month. */
function assertWritable(p: Period, what: string): void {
  for (const end of [p.start, p.end]) assert.ok(end === null || (end >= FIRST_MONTH && end <= LAST_MONTH), `${what}: ${end} is no month of the wire`);
  assert.ok(holdsWireMonth(p), `${what} holds a month of the wire`);
}

interface Held extends Period {
  slot: string;
  payload: string;
}

const ways: [string, (stored: readonly Held[], upserts: readonly Held[]) => Held[]][] = [
  ['applyUpserts', (stored, upserts) => applyUpserts(stored, upserts, (held) => held.slot)],
];
const payloadsAt = (rows: readonly Held[], slot: string, m: number) =>
  rows.filter((held) => held.slot === slot && covers(held, m)).map((held) => held.payload);

for (const { name: universe, periodArb, monthsFor } of UNIVERSES) {
  test(`subtractPeriod (${universe}): pieces are stored minus cut, in order, apart, writable`, () => {
    fc.assert(
      fc.property(periodArb, periodArb, (stored, cut) => {
        const pieces = subtractPeriod(stored, cut);
        assert.ok(pieces.length <= 2);
        for (const piece of pieces) assert.equal(periodProblem(piece), undefined, 'piece is not empty');
        for (const piece of pieces) assertWritable(piece, 'piece');
        const [first, second] = pieces;
        if (first && second) assert.ok(first.end! + 1 < second.start!, 'sorted, with the cut between');
        for (const m of monthsFor([stored, cut])) {
          const inPieces = pieces.filter((piece) => covers(piece, m)).length;
          assert.equal(inPieces, covers(stored, m) && !covers(cut, m) ? 1 : 0, `month ${m}`);
        }
      }),
      { numRuns: RUNS },
    );
  });

  const heldArb = fc.record({ slot: fc.constantFrom('a', 'b', 'c'), period: periodArb });

  /** Stored rows without overlap in a slot (later candidates that collide are dropped), and upserts. */
  const scenarioArb = fc
    .record({ candidates: fc.array(heldArb, { maxLength: 8 }), upserts: fc.array(heldArb, { maxLength: 6 }) })
    .map(({ candidates, upserts }) => {
      const stored: Held[] = [];
      for (const [i, { slot, period: p }] of candidates.entries()) {
        const taken = monthsFor([p, ...stored]).some((m) => covers(p, m) && stored.some((s) => s.slot === slot && covers(s, m)));
        if (!taken) stored.push({ slot, ...p, payload: `stored ${i}` });
      }
      return { stored, upserts: upserts.map(({ slot, period: p }, i): Held => ({ slot, ...p, payload: `upsert ${i}` })) };
    });

  test(`applyOverride (${universe}) changes exactly the rows that share a month with the incoming period`, () => {
    fc.assert(
      fc.property(scenarioArb, periodArb, ({ stored }, incoming) => {
        const { kept, changed } = applyOverride(stored, incoming);
        const months = monthsFor([...stored, incoming]);
        const sharesMonth = (held: Held) => months.some((m) => covers(held, m) && covers(incoming, m));
        assert.deepEqual(kept, stored.filter((held) => !sharesMonth(held)));
        assert.deepEqual(changed.map(({ before }) => before), stored.filter(sharesMonth));
      }),
      { numRuns: RUNS },
    );
  });

  for (const [way, upsertAll] of ways) {
    test(`${way} (${universe}): every row is writable and no slot holds two rows in one month`, () => {
      fc.assert(
        fc.property(scenarioArb, ({ stored, upserts }) => {
          const after = upsertAll(stored, upserts);
          for (const held of after) assertWritable(held, held.payload);
          for (const slot of ['a', 'b', 'c']) {
            for (const m of monthsFor([...stored, ...upserts])) assert.ok(payloadsAt(after, slot, m).length <= 1, `${slot} ${m}`);
          }
        }),
        { numRuns: RUNS },
      );
    });

    test(`${way} (${universe}): the last upsert written wins its months`, () => {
      fc.assert(
        fc.property(scenarioArb, ({ stored, upserts }) => {
          const after = upsertAll(stored, upserts);
          const months = monthsFor([...stored, ...upserts]);
          for (const [i, upsert] of upserts.entries()) {
            const later = upserts.slice(i + 1).filter((u) => u.slot === upsert.slot);
            for (const m of months.filter((m) => covers(upsert, m) && !later.some((u) => covers(u, m)))) {
              assert.deepEqual(payloadsAt(after, upsert.slot, m), [upsert.payload], `month ${m}`);
            }
          }
        }),
        { numRuns: RUNS },
      );
    });

    test(`${way} (${universe}): months outside every upsert of the slot are unchanged`, () => {
      fc.assert(
        fc.property(scenarioArb, ({ stored, upserts }) => {
          const after = upsertAll(stored, upserts);
          for (const slot of ['a', 'b', 'c']) {
            for (const m of monthsFor([...stored, ...upserts]).filter((m) => !upserts.some((u) => u.slot === slot && covers(u, m)))) {
              assert.deepEqual(payloadsAt(after, slot, m), payloadsAt(stored, slot, m), `${slot} ${m}`);
            }
          }
        }),
        { numRuns: RUNS },
      );
    });
  }
}
