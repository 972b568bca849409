import { DatasetError } from '../domain/datasetError.js';
import { STANDARD_REPORTING_FIELDS } from '../domain/fieldKeys.js';
import type { MetricValue, ReportingUser, StatementLine } from '../domain/reportingJson.js';
import type { ReportingLineInput } from '../store/vocabulary/tenantWriter.js';
import { fieldPath, jsonPathOf, type DatasetElement } from './datasetFormat.js';

/** A reporting record as the API returns it, once the schema has accepted it. */
export interface ReportingRecordElement extends Omit<StatementLine, 'metrics'> {
  user: Partial<ReportingUser> & { id: string };
  /** Custom metric and dimension fields. */
  [field: string]: unknown;
}

/** The custom fields a tenant's records may carry. */
export interface CustomFields {
  metricKeys: ReadonlySet<string>;
  dimensionKeys: ReadonlySet<string>;
}

const CURRENCY_SUFFIX = '_currency';

/**
 * The statement line of a record in the API's shape: the standard fields, the metrics read
 * from the flat `<key>` / `<key>_currency` fields (a metric left out is `null`, its currency the
 * payment currency, as the renderer does). Dimension fields are derived data (the stored group
 * attributions decide them): they must be arrays and are otherwise ignored. Any other field is
 * an error at its path.
 */
export function statementLineOf(record: ReportingRecordElement, custom: CustomFields, element: DatasetElement): ReportingLineInput {
  const at = (key: string) => fieldPath(jsonPathOf(element), key);
  const metrics: Record<string, MetricValue> = {};
  for (const key in record) {
    if (STANDARD_REPORTING_FIELDS.has(key)) continue;
    const value = record[key];
    if (custom.metricKeys.has(key)) {
      if (typeof value !== 'number' && value !== null) throw new DatasetError(at(key), 'must be number or null (a metric)');
      const currency = record[key + CURRENCY_SUFFIX] as string | undefined;
      metrics[key] = { value, currency: currency ?? record.payment_currency };
    } else if (custom.dimensionKeys.has(key)) {
      if (!Array.isArray(value)) throw new DatasetError(at(key), 'must be array (the group names of a dimension)');
    } else if (!(key.endsWith(CURRENCY_SUFFIX) && custom.metricKeys.has(key.slice(0, -CURRENCY_SUFFIX.length)))) {
      throw new DatasetError(at(key), 'is not a field of a reporting record: not a standard field, nor a metric or dimension of the tenant');
    }
  }
  return {
    id: record.id,
    user_id: record.user.id,
    date: record.date,
    plan: record.plan,
    payment: record.payment,
    payment_currency: record.payment_currency,
    target: record.target,
    target_currency: record.target_currency,
    target_achievement: record.target_achievement,
    on_target_earning: record.on_target_earning,
    on_target_earning_currency: record.on_target_earning_currency,
    achievement: record.achievement,
    achievement_currency: record.achievement_currency,
    metrics,
  };
}

/**
 * The inverse of {@link statementLineOf}: a line as a record of the API's shape, its user named
 * by id only (what `seed` hands to the element writer). Fields in the API's order.
 */
export function reportingRecordOf(line: ReportingLineInput, metricKeys: readonly string[]): ReportingRecordElement {
  const record: ReportingRecordElement = {
    id: line.id,
    date: line.date,
    plan: line.plan,
    user: { id: line.user_id },
    payment: line.payment,
    payment_currency: line.payment_currency,
    target: line.target,
    target_currency: line.target_currency,
    target_achievement: line.target_achievement,
    on_target_earning: line.on_target_earning,
    on_target_earning_currency: line.on_target_earning_currency,
    achievement: line.achievement,
    achievement_currency: line.achievement_currency,
  };
  for (const key of metricKeys) {
    const metric = line.metrics[key];
    if (metric === undefined) continue;
    record[key] = metric.value;
    record[key + CURRENCY_SUFFIX] = metric.currency;
  }
  return record;
}

/**
 * Checks the record's user object against the stored user: `id` names the user, and any other
 * field given must hold the stored value (as the API returned it).
 */
export function assertSameUser(recordUser: ReportingRecordElement['user'], stored: ReportingUser | undefined, element: DatasetElement): void {
  if (!stored) throw new DatasetError(`${jsonPathOf(element)}.user.id`, `no user with id ${recordUser.id} (users come before the records that name them)`);
  for (const key in recordUser) {
    const given = recordUser[key as keyof ReportingUser];
    const expected = stored[key as keyof ReportingUser];
    if (given !== expected) {
      throw new DatasetError(`${jsonPathOf(element)}.user.${key}`, `must be ${JSON.stringify(expected)}, as user ${stored.id} has it (the record names its user by id)`);
    }
  }
}
