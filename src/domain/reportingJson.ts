import type { MonthIndex } from './months.js';

/**
 * Rendering of statement reporting records as JSON text, done once at write time so that a
 * read only concatenates stored text: rendering each record per request would cost more than
 * the rest of the read.
 *
 * A record is stored as `body` (every field but the dimensions, no closing brace) and joined at
 * read time with the fragment of its user and month (`,"region":["EMEA"],"segment":[]}`).
 */

export interface ReportingUser {
  id: string;
  email: string;
  name: string;
  role: string;
  currency: string;
  calculation_currency: string;
  country: string;
  code: string;
}

export interface MetricValue {
  value: number | null;
  currency: string;
}

export interface StatementLine {
  id: string;
  date: string;
  plan: string;
  payment: number;
  payment_currency: string;
  target: number | null;
  target_currency: string;
  target_achievement: number | null;
  on_target_earning: number | null;
  on_target_earning_currency: string;
  achievement: number | null;
  achievement_currency: string;
  /** Values of custom metrics by key; a metric of the tenant missing here renders as null. */
  metrics: Readonly<Record<string, MetricValue>>;
}

export function renderUser(user: ReportingUser): string {
  return JSON.stringify({
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    currency: user.currency,
    calculation_currency: user.calculation_currency,
    country: user.country,
    code: user.code,
  });
}

/**
 * The stored body of a line: standard fields in the document's order, then every metric of the
 * tenant in `metricKeys` order as `<key>` and `<key>_currency`. A metric without a value is
 * `null` (docs/rules.md#metrics-and-dimensions), its currency then the line's payment currency.
 */
export function renderReportingBody(
  line: StatementLine,
  userJson: string,
  metricKeys: readonly string[],
): string {
  const str = JSON.stringify;
  let body =
    `{"id":${str(line.id)},"date":${str(line.date)},"plan":${str(line.plan)},"user":${userJson}` +
    `,"payment":${num(line.payment)},"payment_currency":${str(line.payment_currency)}` +
    `,"target":${num(line.target)},"target_currency":${str(line.target_currency)}` +
    `,"target_achievement":${num(line.target_achievement)}` +
    `,"on_target_earning":${num(line.on_target_earning)}` +
    `,"on_target_earning_currency":${str(line.on_target_earning_currency)}` +
    `,"achievement":${num(line.achievement)},"achievement_currency":${str(line.achievement_currency)}`;
  for (const key of metricKeys) {
    const metric = line.metrics[key];
    body += `,${str(key)}:${num(metric?.value ?? null)}`;
    body += `,${str(`${key}_currency`)}:${str(metric?.currency ?? line.payment_currency)}`;
  }
  return body;
}

/** A number as the stored JSON writes it (`null` when none); never NaN or infinite. */
export function num(value: number | null): string {
  if (value === null) return 'null';
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  return String(value);
}

/** A group attribution of one user, as the fragment renderer needs it. */
export interface GroupPeriod {
  dimensionKey: string;
  group: string;
  start: MonthIndex;
  /** `null`: no end. */
  end: MonthIndex | null;
}

/**
 * The dimension fields of one user in one month, with the record's closing brace:
 * every dimension in `dimensionKeys` order, holding the names of the groups whose period
 * covers `month` (in order of their start).
 */
export function renderDimensionFragment(
  dimensionKeys: readonly string[],
  periods: readonly GroupPeriod[],
  month: MonthIndex,
): string {
  return fragmentOfNames(dimensionKeys, (key) =>
    periods
      .filter((p) => p.dimensionKey === key && p.start <= month && (p.end === null || month <= p.end))
      .sort((a, b) => a.start - b.start)
      .map((p) => p.group),
  );
}

/** Dimension fields rendered from the group names of each dimension (`dimensionKeys` order). */
function fragmentOfNames(dimensionKeys: readonly string[], namesOf: (key: string) => readonly string[]): string {
  let fragment = '';
  for (const key of dimensionKeys) fragment += `,${JSON.stringify(key)}:${JSON.stringify(namesOf(key))}`;
  return `${fragment}}`;
}

/**
 * Stored dimension fields (as {@link renderDimensionFragment} wrote them) with the groups of
 * some dimensions replaced: `replaced` maps a dimension key to its one group in this month.
 * The other dimensions keep the names they had.
 */
export function replaceDimensionGroups(dimensionKeys: readonly string[], fragment: string, replaced: ReadonlyMap<string, string>): string {
  const stored = new Map(Object.entries(JSON.parse(`{${fragment.slice(1)}`) as Record<string, string[]>));
  return fragmentOfNames(dimensionKeys, (key) => {
    const group = replaced.get(key);
    return group === undefined ? (stored.get(key) ?? []) : [group];
  });
}
