import { parseReportingFilter, type ReportingFilter } from '../domain/reportingFilter.js';
import { problems } from './problems.js';
import type { ValidatedQuery } from './validatedQuery.js';

type FilterParams = Pick<ValidatedQuery<'getReportingRecords'>, 'user' | 'date_from' | 'date_to' | 'plan'>;

/**
 * The filters of `GET /v1/reporting` in a request (`user`, `date_from`, `date_to`, `plan`), once
 * the contract has checked their form, and the same query values for `next` to carry; `400`
 * for a date that is no calendar date or `date_from` after `date_to`.
 */
export function reportingFilterQuery(query: ValidatedQuery<'getReportingRecords'>): { filter: ReportingFilter; params: FilterParams } {
  const params = { user: query.user, date_from: query.date_from, date_to: query.date_to, plan: query.plan };
  const filter = parseReportingFilter(params);
  if (Array.isArray(filter)) throw problems.badRequest(filter);
  return { filter, params };
}
