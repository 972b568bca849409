import { respondWithPage } from '../pagedResponse.js';
import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';

export const getReportingRecords =
  ({ reads, publicBase }: HandlerDeps): OperationHandler =>
  (_api, ctx) => {
    const { tenantId, emptyFragment } = ctx.state.principal;
    respondWithPage(ctx, publicBase, reads.reporting(tenantId, emptyFragment), { path: '/v1/reporting' });
  };
