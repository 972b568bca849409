import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { respondWithChanges } from '../changesResponse.js';
import { respondWithPage } from '../pagedResponse.js';
import { reportingFilterQuery } from '../reportingFilterQuery.js';

/**
 * `GET /v1/reporting`: the tenant's statement reporting records, paged (docs/rules.md#paging),
 * optionally filtered (extension), or those changed since a sync token (extension; no filters
 * beside it).
 */
export const getReportingRecords =
  (deps: HandlerDeps): OperationHandler =>
  (_api, ctx) => {
    if (ctx.query.changed_since !== undefined) return respondWithChanges(ctx, deps, { kind: 'reporting' }, { path: '/v1/reporting' });
    const { filter, params } = reportingFilterQuery(ctx);
    return respondWithPage(ctx, deps, { kind: 'reporting', ...filter }, { path: '/v1/reporting', params });
  };
