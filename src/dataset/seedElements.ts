import { formatMonth, monthOfDate, type MonthIndex } from '../domain/months.js';
import type { StatementStatus } from '../domain/statements.js';
import { DATASET_FORMAT, type DatasetElement } from './datasetFormat.js';
import type { SeedDataset } from './generateSeed.js';
import { reportingRecordOf } from './reportingElement.js';

/**
 * The seed dataset as the elements of a dataset file, in file order, lazily: what `compdata
 * seed` hands to the same element writer that `compdata import` uses. Records name their user
 * by id only; attributions name users by e-mail address, as a file does.
 */
export function* seedElements(dataset: SeedDataset): Generator<DatasetElement> {
  yield { kind: 'format', value: DATASET_FORMAT };
  yield* dataset.metrics.map((key, index) => ({ kind: 'metrics' as const, index, value: { key } }));
  yield* dataset.dimensions.map((key, index) => ({ kind: 'dimensions' as const, index, value: { key } }));
  yield* dataset.users.map((user, index) => ({ kind: 'users' as const, index, value: user }));
  const emailOf = new Map(dataset.users.map((user) => [user.id, user.email]));
  yield* dataset.groupAttributions.map((item, index) => ({
    kind: 'group_attributions' as const,
    index,
    value: {
      user: emailOf.get(item.user_id),
      group_dimension: item.dimension,
      group: item.group,
      start_date: formatMonth(item.start),
      end_date: monthOrNull(item.end),
    },
  }));
  yield* dataset.managerAttributions.map((item, index) => ({
    kind: 'manager_attributions' as const,
    index,
    value: {
      user: emailOf.get(item.user_id),
      manager: emailOf.get(item.manager_id),
      start_date: monthOrNull(item.start),
      end_date: monthOrNull(item.end),
    },
  }));
  let index = 0;
  // The statements, in the order their first lines come: each a user's lines of a month.
  const statements = new Map<string, { user: string; month: MonthIndex }>();
  for (const line of dataset.reportingLines()) {
    const month = monthOfDate(line.date)!;
    const key = `${line.user_id} ${month}`;
    if (!statements.has(key)) statements.set(key, { user: emailOf.get(line.user_id)!, month });
    yield { kind: 'reporting', index: index++, value: reportingRecordOf(line, dataset.metrics) };
  }
  index = 0;
  for (const { user, month } of statements.values()) {
    yield { kind: 'statements', index: index++, value: { user, month: formatMonth(month), status: seedStatementStatus(month, dataset.lastMonth) } };
  }
  yield { kind: 'tables', index: 0, value: dataset.table };
  index = 0;
  for (const record of dataset.tableRecords()) yield { kind: 'table_records', table: 0, index: index++, value: record };
}

function monthOrNull(month: MonthIndex | null): string | null {
  return month === null ? null : formatMonth(month);
}

/**
 * The status of a seeded statement of `month`, `lastMonth` being the seed's last month (its
 * current one): `draft` from it on, `sent_to_payroll` for the month before (the last closed
 * one, handed to payroll and not yet paid), `paid` for every older month.
 */
export function seedStatementStatus(month: MonthIndex, lastMonth: MonthIndex): StatementStatus {
  if (month >= lastMonth) return 'draft';
  return month === lastMonth - 1 ? 'sent_to_payroll' : 'paid';
}
