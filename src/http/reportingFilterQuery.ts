import type { Context } from 'koa';
import { parseReportingFilter, type ReportingFilter } from '../domain/reportingFilter.js';
import { problems } from './problems.js';
import { queryText } from './queryText.js';

/**
 * The filters of `GET /v1/reporting` in a request (`user`, `date_from`, `date_to`, `plan`), once
 * the contract has checked their form, and the same query values for `next` to carry; `400`
 * for a date that is no calendar date or `date_from` after `date_to`.
 */
export function reportingFilterQuery(ctx: Context): { filter: ReportingFilter; params: Record<string, string | undefined> } {
  const params = {
    user: queryText(ctx.query.user),
    date_from: queryText(ctx.query.date_from),
    date_to: queryText(ctx.query.date_to),
    plan: queryText(ctx.query.plan),
  };
  const filter = parseReportingFilter(params);
  if (Array.isArray(filter)) throw problems.badRequest(filter);
  return { filter, params };
}
