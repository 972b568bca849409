import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { validatedPath, validatedQuery } from '../validatedQuery.js';
import { respondWithV2Page } from '../v2Page.js';

/** `GET /v2/reporting/{table_id}/records`: a data table's records, paged by `start_id`. */
export const getV2Records =
  (deps: HandlerDeps): OperationHandler =>
  (api, ctx) =>
    respondWithV2Page(ctx, deps, 'table', validatedPath<'getV2Records'>(api).table_id, validatedQuery<'getV2Records'>(api));
