import type { MonthIndex } from '../domain/months.js';
import type { ReportingUser } from '../domain/reportingJson.js';
import type { TableField, TableRecordInput } from '../domain/tableJson.js';
import type { GroupAttributionInput, ManagerAttributionInput, ReportingLineInput } from '../store/vocabulary/tenantWriter.js';
import { dealCount, dealRecords, DEALS_TABLE } from './deals.js';
import { createRandom } from './random.js';
import { SEED_PERIOD } from './vocabulary.js';
import { generateSalesForce } from './salesForce.js';
import { SEED_METRICS, statementLines } from './statementLines.js';

export interface SeedOptions {
  /** Any text; the same text gives the same dataset. */
  seed: string;
  /** Number of users, at least 1. */
  users: number;
  /** Number of statement reporting lines, at least 0. */
  records: number;
}

/**
 * A tenant's demo data. Users and attributions are small and held; statement lines and table
 * records are produced lazily, so a million of them never sit in memory together. Each call of
 * `reportingLines()` or `tableRecords()` starts a new pass that yields the same values.
 */
export interface SeedDataset {
  metrics: readonly string[];
  dimensions: readonly string[];
  users: readonly ReportingUser[];
  groupAttributions: readonly GroupAttributionInput[];
  managerAttributions: readonly ManagerAttributionInput[];
  /** The seed's last month (its current one): the lines' months end there, statements' statuses follow from it. */
  lastMonth: MonthIndex;
  reportingLineCount: number;
  reportingLines: () => Iterable<ReportingLineInput>;
  table: { key: string; name: string; fields: readonly TableField[] };
  tableRecordCount: number;
  tableRecords: () => Iterable<TableRecordInput>;
}

const SEED_DIMENSIONS = ['region', 'segment'] as const;

/**
 * The seed dataset of `options`: pure and deterministic (no I/O, no clock, no global random).
 * Each part draws from its own stream of the seed, so that asking for more records leaves the
 * users and attributions unchanged.
 */
export function generateSeed(options: SeedOptions): SeedDataset {
  const { seed, users, records } = options;
  if (!Number.isSafeInteger(users) || users < 1) throw new RangeError(`users must be an integer >= 1, not ${users}`);
  if (!Number.isSafeInteger(records) || records < 0) {
    throw new RangeError(`records must be an integer >= 0, not ${records}`);
  }
  const salesForce = generateSalesForce(createRandom(`${seed}/users`), users);
  const tableRecordCount = dealCount(records);
  return {
    metrics: SEED_METRICS,
    dimensions: SEED_DIMENSIONS,
    users: salesForce.people.map((person) => person.user),
    groupAttributions: salesForce.groupAttributions,
    managerAttributions: salesForce.managerAttributions,
    lastMonth: SEED_PERIOD.last,
    reportingLineCount: records,
    reportingLines: () => statementLines(createRandom(`${seed}/lines`), salesForce.people, records),
    table: DEALS_TABLE,
    tableRecordCount,
    tableRecords: () => dealRecords(createRandom(`${seed}/deals`), salesForce.people, tableRecordCount),
  };
}
