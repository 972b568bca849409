import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateSeed, type SeedDataset } from '../../src/dataset/generateSeed.js';
import { seedStatementStatus } from '../../src/dataset/seedElements.js';
import { monthOfDate, type MonthIndex } from '../../src/domain/months.js';
import { renderReportingBody, renderUser } from '../../src/domain/reportingJson.js';
import { renderTableRecord } from '../../src/domain/tableJson.js';
import type { ManagerAttributionInput } from '../../src/store/vocabulary/tenantWriter.js';

const CURRENCY = /^[A-Z]{3}$/;

/** The dataset as plain data: its lazy passes run into arrays. */
function materialised(dataset: SeedDataset) {
  const { reportingLines, tableRecords, ...held } = dataset;
  return { ...held, lines: [...reportingLines()], deals: [...tableRecords()] };
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

/** Whether periods (null start: since always, null end: no end) share a month. */
function overlap(periods: readonly { start: MonthIndex | null; end: MonthIndex | null }[]): boolean {
  return periods.some((a, i) =>
    periods.some((b, j) => i < j && (a.start ?? -Infinity) <= (b.end ?? Infinity) && (b.start ?? -Infinity) <= (a.end ?? Infinity)),
  );
}

/** The manager of each user in `month`. */
function managersIn(month: MonthIndex, items: readonly ManagerAttributionInput[]): Map<string, string> {
  const covering = items.filter((item) => (item.start ?? -Infinity) <= month && month <= (item.end ?? Infinity));
  return new Map(covering.map((item) => [item.user_id, item.manager_id]));
}

const SIZES: [string, { users: number; records: number }][] = [
  ['a single user', { users: 1, records: 40 }],
  ['two users', { users: 2, records: 0 }],
  ['three users', { users: 3, records: 100 }],
  ['the default size', { users: 200, records: 10_000 }],
  ['many users, few records', { users: 1500, records: 700 }],
];

describe('generateSeed: the data model rules hold at every size', () => {
  for (const [name, size] of SIZES) {
    test(name, () => {
      const seed = materialised(generateSeed({ seed: name, ...size }));
      const userIds = new Set(seed.users.map((user) => user.id));
      assert.equal(seed.users.length, size.users);
      assert.equal(userIds.size, size.users, 'user ids are unique');
      assert.equal(new Set(seed.users.map((user) => user.email)).size, size.users, 'e-mails are unique');
      assert.equal(new Set(seed.users.map((user) => user.code)).size, size.users, 'codes are unique');
      for (const user of seed.users) {
        assert.match(user.email, /^[a-z0-9.]+@example\.com$/);
        assert.match(user.currency, CURRENCY);
        assert.match(user.calculation_currency, CURRENCY);
        assert.ok(user.name && user.role && user.country && user.code, renderUser(user));
      }

      for (const [key, periods] of groupBy(seed.groupAttributions, (a) => `${a.user_id} ${a.dimension}`)) {
        assert.ok(!overlap(periods), `overlapping groups for ${key}`);
      }
      for (const item of seed.groupAttributions) {
        assert.ok(userIds.has(item.user_id));
        assert.ok(seed.dimensions.includes(item.dimension));
        assert.ok(item.end === null || item.start <= item.end);
      }
      for (const [user, periods] of groupBy(seed.managerAttributions, (a) => a.user_id)) {
        assert.ok(!overlap(periods), `two managers at once for ${user}`);
      }
      for (const item of seed.managerAttributions) {
        assert.ok(userIds.has(item.user_id) && userIds.has(item.manager_id));
        assert.notEqual(item.user_id, item.manager_id);
      }

      assert.equal(seed.lines.length, size.records);
      assert.equal(new Set(seed.lines.map((line) => line.id)).size, size.records, 'record ids are unique');
      for (const line of seed.lines) {
        assert.ok(userIds.has(line.user_id));
        assert.notEqual(monthOfDate(line.date), undefined, line.date);
        renderReportingBody(line, '{}', seed.metrics); // throws on a value that is not a finite number
      }
      assert.equal(seed.deals.length, Math.max(100, Math.floor(size.records / 5)));
      for (const deal of seed.deals) {
        renderTableRecord(seed.table.fields, deal); // throws on a value that does not fit its field
        assert.ok(userIds.has(deal.owner_id as string));
      }
    });
  }
});

describe('generateSeed: a hierarchy without cycles in any month', () => {
  test('following managers from any user ends at the top, month by month', () => {
    const seed = generateSeed({ seed: 'hierarchy', users: 600, records: 0 });
    const months = seed.groupAttributions.map((a) => a.start);
    for (let month = Math.min(...months) - 1; month <= Math.max(...months) + 1; month += 1) {
      const managers = managersIn(month, seed.managerAttributions);
      for (const user of seed.users) {
        let current: string | undefined = user.id;
        for (let steps = 0; current !== undefined; steps += 1) {
          assert.ok(steps <= seed.users.length, `cycle through ${user.id} in month ${month}`);
          current = managers.get(current);
        }
      }
    }
  });
});

describe('generateSeed: realistic variety', () => {
  const seed = materialised(generateSeed({ seed: 'variety', users: 200, records: 20_000 }));

  test('users change group and manager mid-period; periods open and closed', () => {
    const regionsPerUser = groupBy(seed.groupAttributions.filter((a) => a.dimension === 'region'), (a) => a.user_id);
    assert.ok([...regionsPerUser.values()].some((periods) => new Set(periods.map((p) => p.group)).size > 1));
    assert.ok(seed.groupAttributions.some((a) => a.end === null));
    assert.ok(seed.groupAttributions.some((a) => a.end !== null));
    assert.ok(new Set(seed.groupAttributions.map((a) => a.group)).size >= 5);
    const managersPerUser = groupBy(seed.managerAttributions, (a) => a.user_id);
    assert.ok([...managersPerUser.values()].some((periods) => new Set(periods.map((p) => p.manager_id)).size > 1));
    assert.ok(seed.managerAttributions.some((a) => a.start === null));
    assert.ok(seed.managerAttributions.some((a) => a.start !== null));
    assert.ok(new Set(seed.users.map((user) => user.role)).size >= 5);
    assert.ok(new Set(seed.users.map((user) => user.currency)).size >= 3);
  });

  test('records spread over at least 24 months, many plans and most users', () => {
    assert.ok(new Set(seed.lines.map((line) => monthOfDate(line.date))).size >= 24);
    assert.ok(new Set(seed.lines.map((line) => line.plan)).size >= 5);
    assert.ok(new Set(seed.lines.map((line) => line.user_id)).size >= 180);
  });

  test('every record falls in a month where its user has a region', () => {
    const regions = groupBy(seed.groupAttributions.filter((a) => a.dimension === 'region'), (a) => a.user_id);
    for (const line of seed.lines) {
      const month = monthOfDate(line.date)!;
      const covered = (regions.get(line.user_id) ?? []).some((p) => p.start <= month && (p.end === null || month <= p.end));
      assert.ok(covered, `${line.id} of ${line.user_id} in ${line.date}`);
    }
  });

  test('amounts are plausible: positive, skewed, ratios that agree, some nulls', () => {
    const payments = seed.lines.map((line) => line.payment).sort((a, b) => a - b);
    assert.ok(payments[0]! >= 0);
    const median = payments[Math.floor(payments.length / 2)]!;
    const mean = payments.reduce((sum, p) => sum + p, 0) / payments.length;
    assert.ok(median > 100 && median < 100_000, `median payment ${median}`);
    assert.ok(mean > median, 'payments are right-skewed');
    for (const line of seed.lines) {
      if (line.target !== null && line.achievement !== null && line.target > 0) {
        assert.ok(Math.abs(line.target_achievement! - line.achievement / line.target) < 1e-4, line.id);
      }
    }
    for (const field of ['target', 'on_target_earning'] as const) {
      assert.ok(seed.lines.some((line) => line[field] === null), `${field} is sometimes null`);
    }
    for (const metric of seed.metrics) {
      const values = seed.lines.map((line) => line.metrics[metric]?.value);
      assert.ok(values.some((value) => value === null), `${metric} is sometimes null`);
      assert.ok(values.some((value) => typeof value === 'number' && value > 0), `${metric} has values`);
    }
  });

  test('deals close at ISO 8601 UTC instants and carry their amount currency', () => {
    for (const deal of seed.deals) {
      assert.match(deal.close_date as string, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00\.000Z$/);
      assert.equal(new Date(deal.close_date as string).toISOString(), deal.close_date);
      assert.ok((deal.amount as number) > 0);
      assert.match(deal.amount_currency as string, CURRENCY);
    }
    assert.ok(new Set(seed.deals.map((deal) => deal.stage)).size >= 3);
  });
});

describe('generateSeed: deterministic and lazy', () => {
  test('the same options give the same data; another seed other data', () => {
    const options = { seed: 'same', users: 50, records: 2000 };
    assert.deepEqual(materialised(generateSeed(options)), materialised(generateSeed(options)));
    const other = materialised(generateSeed({ ...options, seed: 'other' }));
    const first = materialised(generateSeed(options));
    assert.notDeepEqual(other.users, first.users);
    assert.notDeepEqual(other.lines, first.lines);
    assert.notDeepEqual(other.deals, first.deals);
  });

  test('each pass over the records yields the same records', () => {
    const dataset = generateSeed({ seed: 'passes', users: 20, records: 300 });
    assert.deepEqual([...dataset.reportingLines()], [...dataset.reportingLines()]);
    assert.deepEqual([...dataset.tableRecords()], [...dataset.tableRecords()]);
  });

  test('the number of records leaves users and attributions unchanged', () => {
    const few = generateSeed({ seed: 'stable', users: 80, records: 10 });
    const many = generateSeed({ seed: 'stable', users: 80, records: 50_000 });
    assert.deepEqual(many.users, few.users);
    assert.deepEqual(many.groupAttributions, few.groupAttributions);
    assert.deepEqual(many.managerAttributions, few.managerAttributions);
  });

  test('a billion records are produced one by one, never all at once', () => {
    const dataset = generateSeed({ seed: 'lazy', users: 10, records: 1_000_000_000 });
    const started = performance.now();
    const lines = dataset.reportingLines()[Symbol.iterator]();
    for (let i = 0; i < 1000; i += 1) assert.equal(lines.next().done, false);
    assert.ok(performance.now() - started < 1000);
  });

  test('refuses sizes that are not counts', () => {
    const refused: [string, { users: number; records: number }][] = [
      ['no users', { users: 0, records: 10 }],
      ['fractional users', { users: 1.5, records: 10 }],
      ['negative records', { users: 5, records: -1 }],
      ['infinite records', { users: 5, records: Infinity }],
    ];
    for (const [name, size] of refused) {
      assert.throws(() => generateSeed({ seed: 's', ...size }), RangeError, name);
    }
  });
});

describe('seedStatementStatus: statuses by month, relative to the seed\'s last month', () => {
  test('the last month and later draft, the month before sent to payroll, older months paid', () => {
    const last = 2026 * 12 + 2;
    assert.deepEqual([last + 1, last, last - 1, last - 2, last - 30].map((month) => seedStatementStatus(month, last)), ['draft', 'draft', 'sent_to_payroll', 'paid', 'paid']);
    assert.equal(generateSeed({ seed: 's', users: 1, records: 0 }).lastMonth, last, "the seed's last month is 2026-03");
  });
});
