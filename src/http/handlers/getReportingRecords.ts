import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { respondWithPage } from '../pagedResponse.js';

/** `GET /v1/reporting`: the tenant's statement reporting records, paged (D2, D3). */
export const getReportingRecords =
  (deps: HandlerDeps): OperationHandler =>
  (_api, ctx) =>
    respondWithPage(ctx, deps, { kind: 'reporting' }, { path: '/v1/reporting' });
