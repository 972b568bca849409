import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { contractPageLimits } from '../pageLimits.js';
import { respondWithPage } from '../pagedResponse.js';
import { validatedQuery } from '../validatedQuery.js';

/** `GET /v1/users/managers` (extension): the stored manager attributions, paged (docs/rules.md#bulk-attributions). */
export const getManagerAttributions = (deps: HandlerDeps): OperationHandler => {
  const limits = contractPageLimits().getManagerAttributions;
  return (api, ctx) => {
    const query = validatedQuery<'getManagerAttributions'>(api);
    return respondWithPage(ctx, deps, { kind: 'managerAttributions', user: query.user }, { path: '/v1/users/managers', params: { user: query.user }, limits }, query);
  };
};
