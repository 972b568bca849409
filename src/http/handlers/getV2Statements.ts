import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { validatedPath, validatedQuery } from '../validatedQuery.js';
import { respondWithV2Page } from '../v2Page.js';

/** `GET /v2/reporting/{table_id}/statements`: the statement reporting structure's records, paged by `start_id`. */
export const getV2Statements =
  (deps: HandlerDeps): OperationHandler =>
  (api, ctx) =>
    respondWithV2Page(ctx, deps, 'statements', validatedPath<'getV2Statements'>(api).table_id, validatedQuery<'getV2Statements'>(api));
