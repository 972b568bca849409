import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { contractPageLimits } from '../pageLimits.js';
import { respondWithPage } from '../pagedResponse.js';
import { validatedQuery } from '../validatedQuery.js';

/** `GET /v1/users/groups` (extension): the stored group attributions, paged (docs/rules.md#bulk-attributions). */
export const getGroupAttributions = (deps: HandlerDeps): OperationHandler => {
  const limits = contractPageLimits().getGroupAttributions;
  return (api, ctx) => {
    const query = validatedQuery<'getGroupAttributions'>(api);
    const { user, group_dimension: dimension } = query;
    const source = { kind: 'groupAttributions', user, dimension } as const;
    return respondWithPage(ctx, deps, source, { path: '/v1/users/groups', params: { user, group_dimension: dimension }, limits }, query);
  };
};
