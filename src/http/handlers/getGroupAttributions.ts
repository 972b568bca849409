import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { respondWithPage } from '../pagedResponse.js';
import { queryText } from '../queryText.js';

/** `GET /v1/users/groups` (extension): the stored group attributions, paged (docs/rules.md#bulk-attributions). */
export const getGroupAttributions =
  (deps: HandlerDeps): OperationHandler =>
  (_api, ctx) => {
    const user = queryText(ctx.query.user);
    const dimension = queryText(ctx.query.group_dimension);
    const source = { kind: 'groupAttributions', user, dimension } as const;
    return respondWithPage(ctx, deps, source, { path: '/v1/users/groups', params: { user, group_dimension: dimension } });
  };
