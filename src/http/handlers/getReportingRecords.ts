import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { respondWithChanges } from '../changesResponse.js';
import { respondWithPage } from '../pagedResponse.js';

/** `GET /v1/reporting`: the tenant's statement reporting records, paged (D2, D3), or those changed since a sync token. */
export const getReportingRecords =
  (deps: HandlerDeps): OperationHandler =>
  (_api, ctx) =>
    ctx.query.changed_since !== undefined
      ? respondWithChanges(ctx, deps, { kind: 'reporting' }, { path: '/v1/reporting' })
      : respondWithPage(ctx, deps, { kind: 'reporting' }, { path: '/v1/reporting' });
