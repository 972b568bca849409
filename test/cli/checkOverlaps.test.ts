import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseMonth } from '../../src/domain/months.js';
import { buildFixture } from '../support/fixture.js';
import { tempDatabase, TEST_ENGINE } from '../support/harness.js';

/**
 * What `compdata check` reads as overlapping periods (one window over each slot, in SQL) against
 * the plain definition, on random periods written straight into the database: two periods of
 * one slot share a month. Whenever it reports one, the month it names is held by two periods.
 */
// Four months: periods that touch at one month (the boundary an off-by-one misses) come often.
const FIRST = 2026 * 12;
const bound = (open: boolean, month: number) => (open ? null : month);
const periodArb = fc
  .tuple(fc.boolean(), fc.integer({ min: 0, max: 3 }), fc.boolean(), fc.integer({ min: 0, max: 3 }))
  .map(([openStart, a, openEnd, b]) => ({ start: bound(openStart, FIRST + Math.min(a, b)), end: bound(openEnd, FIRST + Math.max(a, b)) }));

type Period = { start: number | null; end: number | null };
const holds = (p: Period, month: number) => (p.start ?? -Infinity) <= month && month <= (p.end ?? Infinity);
const overlapping = (periods: readonly Period[]) =>
  periods.some((p, i) => periods.slice(i + 1).some((q) => Math.max(p.start ?? -Infinity, q.start ?? -Infinity) <= Math.min(p.end ?? Infinity, q.end ?? Infinity)));

test('check reports overlapping periods of a slot exactly when two share a month, naming a shared month', async (t) => {
  const db = await tempDatabase(t);
  const fixture = await buildFixture(db.store, { tenant: 'acme' });
  const pk = async (sql: string) => Number(await db.sql.value(sql));
  const [u0, u1, u2, region, emea, apac] = [
    await pk(`SELECT pk FROM users WHERE id = 'u0'`),
    await pk(`SELECT pk FROM users WHERE id = 'u1'`),
    await pk(`SELECT pk FROM users WHERE id = 'u2'`),
    await pk(`SELECT pk FROM dimensions WHERE key = 'region'`),
    await pk(`SELECT pk FROM groups WHERE name = 'EMEA'`),
    await pk(`SELECT pk FROM groups WHERE name = 'APAC'`),
  ];
  const tenant = db.engine === 'postgres' ? ['tenant_id, ', `${fixture.tenantId}, `] : ['', ''];

  const property = fc.asyncProperty(
    fc.array(periodArb, { maxLength: 4 }),
    // Two periods of one user and dimension never share a start: SQLite's key refuses them (migration 27).
    fc.uniqueArray(fc.tuple(periodArb, fc.boolean()), { maxLength: 4, selector: ([p]) => p.start ?? FIRST }),
    async (managers, groups) => {
      const groupPeriods = groups.map(([p]) => ({ start: p.start ?? FIRST, end: p.end }));
      // The periods of a run replace the last run's in one transaction, sent as one script: the
      // values are numbers and NULLs of this test's own.
      const value = (month: number | null) => (month === null ? 'NULL' : String(month));
      const managerRows = managers.map((p, i) => `(${tenant[1]}${u1}, ${i % 2 === 0 ? u0 : u2}, ${value(p.start)}, ${value(p.end)})`);
      const groupRows = groupPeriods.map((p, i) => `(${tenant[1]}${u2}, ${region}, ${groups[i]![1] ? emea : apac}, ${value(p.start)}, ${value(p.end)})`);
      await db.sql.exec(
        [
          'BEGIN',
          'DELETE FROM manager_attributions',
          'DELETE FROM group_attributions',
          ...(managerRows.length ? [`INSERT INTO manager_attributions (${tenant[0]}user_pk, manager_pk, start_month, end_month) VALUES ${managerRows.join(', ')}`] : []),
          ...(groupRows.length ? [`INSERT INTO group_attributions (${tenant[0]}user_pk, dimension_pk, group_pk, start_month, end_month) VALUES ${groupRows.join(', ')}`] : []),
          'COMMIT',
        ].join('; '),
      );
      const found = new Map((await db.store.check()).map((v) => [v.kind, v.example]));
      for (const [kind, periods] of [
        ['manager-overlap', managers],
        ['group-overlap', groupPeriods],
      ] as const) {
        const example = found.get(kind);
        assert.equal(example !== undefined, overlapping(periods), `${kind}: ${example ?? 'none reported'}`);
        if (example === undefined) continue;
        const month = parseMonth(/in (\d{4}-\d{2})$/.exec(example)![1]!)!;
        assert.ok(periods.filter((p) => holds(p, month)).length >= 2, `${example}: the month is not shared`);
      }
    },
  );
  // Periods that share only their edge month, and the same a month apart, always run.
  const touching: [Period[], [Period, boolean][]] = [
    [{ start: null, end: FIRST + 1 }, { start: FIRST + 1, end: null }],
    [[{ start: FIRST, end: FIRST + 1 }, true], [{ start: FIRST + 1, end: FIRST + 3 }, false]],
  ];
  const apart: [Period[], [Period, boolean][]] = [
    [{ start: null, end: FIRST }, { start: FIRST + 1, end: null }],
    [[{ start: FIRST, end: FIRST }, true], [{ start: FIRST + 1, end: null }, false]],
  ];
  await fc.assert(property, { numRuns: TEST_ENGINE === 'postgres' ? 40 : 150, examples: [touching, apart] });
});
