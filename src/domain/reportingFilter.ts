import { monthOfDate, type MonthIndex } from './months.js';
import type { ParamProblem } from './paging.js';

/**
 * The filters of `GET /v1/reporting` (extension): the records of one user (e-mail address,
 * compared without regard to ASCII case), of a plan (its exact name), whose `date` lies between
 * `dateFrom` and `dateTo` (`YYYY-MM-DD`, both included; either may be left open). Given
 * together, a record must match each.
 */
export interface ReportingFilter {
  readonly user?: string;
  readonly dateFrom?: string;
  readonly dateTo?: string;
  readonly plan?: string;
}

/** The dates a filter admits, and their months (a record's `month` is the month of its `date`). */
export interface DateRange {
  readonly from: string;
  readonly to: string;
  readonly firstMonth: MonthIndex;
  readonly lastMonth: MonthIndex;
}

const OPEN_FROM = '0000-01-01';
const OPEN_TO = '9999-12-31';

/**
 * The filter of a request's query values, or why it is refused (400): a date that is not a
 * calendar date, `date_from` after `date_to`.
 */
export function parseReportingFilter(query: { user?: string; date_from?: string; date_to?: string; plan?: string }): ReportingFilter | ParamProblem[] {
  const problems: ParamProblem[] = [];
  for (const name of ['date_from', 'date_to'] as const) {
    const value = query[name];
    if (value !== undefined && monthOfDate(value) === undefined) problems.push({ pointer: `/query/${name}`, message: 'must be a calendar date YYYY-MM-DD' });
  }
  if (problems.length === 0 && query.date_from !== undefined && query.date_to !== undefined && query.date_from > query.date_to) {
    problems.push({ pointer: '/query/date_from', message: `must not be after date_to (${query.date_to})` });
  }
  if (problems.length > 0) return problems;
  const filter = { user: query.user, dateFrom: query.date_from, dateTo: query.date_to, plan: query.plan };
  return Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined));
}

/** Whether the filter narrows anything (an empty one reads every record). */
export const narrows = (filter: ReportingFilter): boolean =>
  filter.user !== undefined || filter.dateFrom !== undefined || filter.dateTo !== undefined || filter.plan !== undefined;

/** The dates the filter admits, or `undefined` when it says nothing of dates. */
export function dateRange(filter: ReportingFilter): DateRange | undefined {
  if (filter.dateFrom === undefined && filter.dateTo === undefined) return undefined;
  const from = filter.dateFrom ?? OPEN_FROM;
  const to = filter.dateTo ?? OPEN_TO;
  return { from, to, firstMonth: monthOfDate(from)!, lastMonth: monthOfDate(to)! };
}
