import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { respondWithPage } from '../pagedResponse.js';
import { queryText } from '../queryText.js';

/** `GET /v1/users/managers` (extension): the stored manager attributions, paged (docs/rules.md#bulk-attributions). */
export const getManagerAttributions =
  (deps: HandlerDeps): OperationHandler =>
  (_api, ctx) => {
    const user = queryText(ctx.query.user);
    return respondWithPage(ctx, deps, { kind: 'managerAttributions', user }, { path: '/v1/users/managers', params: { user } });
  };
