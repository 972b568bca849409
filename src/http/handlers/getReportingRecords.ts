import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { respondWithChanges } from '../changesResponse.js';
import { markDeprecated } from '../deprecation.js';
import { contractPageLimits } from '../pageLimits.js';
import { respondWithPage } from '../pagedResponse.js';
import { reportingFilterQuery } from '../reportingFilterQuery.js';
import { validatedQuery } from '../validatedQuery.js';

/**
 * `GET /v1/reporting`: the tenant's statement reporting records, paged (docs/rules.md#paging),
 * optionally filtered (extension), or those changed since a sync token (extension; no filters
 * beside it).
 */
export const getReportingRecords = (deps: HandlerDeps): OperationHandler => {
  const target = { path: '/v1/reporting', limits: contractPageLimits().getReportingRecords };
  return (api, ctx) => {
    const query = validatedQuery<'getReportingRecords'>(api);
    markDeprecated(ctx, deps.publicBase, 'statements');
    if (query.changed_since !== undefined) return respondWithChanges(ctx, deps, { kind: 'reporting' }, target, query.changed_since, query);
    const { filter, params } = reportingFilterQuery(query);
    return respondWithPage(ctx, deps, { kind: 'reporting', ...filter }, { ...target, params }, query);
  };
};
