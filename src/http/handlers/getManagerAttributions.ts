import { attributionReads } from '../../store/attributionReads.js';
import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { respondWithPage } from '../pagedResponse.js';
import { queryText } from '../queryText.js';

/** `GET /v1/users/managers` (extension): the stored manager attributions, paged (D2, D4). */
export const getManagerAttributions = ({ db, publicBase }: HandlerDeps): OperationHandler => {
  const reads = attributionReads(db);
  return (_api, ctx) => {
    const user = queryText(ctx.query.user);
    const source = reads.managers(ctx.state.principal.tenantId, { user });
    respondWithPage(ctx, publicBase, source, { path: '/v1/users/managers', params: { user } });
  };
};
