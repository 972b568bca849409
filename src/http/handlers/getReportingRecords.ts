import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { respondWithPage } from '../pagedResponse.js';
import { reportingFilterQuery } from '../reportingFilterQuery.js';

/** `GET /v1/reporting`: the tenant's statement reporting records, paged (D2, D3), optionally filtered (extension). */
export const getReportingRecords =
  (deps: HandlerDeps): OperationHandler =>
  (_api, ctx) => {
    const { filter, params } = reportingFilterQuery(ctx);
    return respondWithPage(ctx, deps, { kind: 'reporting', ...filter }, { path: '/v1/reporting', params });
  };
