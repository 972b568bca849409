import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { contractPageLimits } from '../pageLimits.js';
import { validatedPath, validatedQuery } from '../validatedQuery.js';
import { respondWithV2Page } from '../v2PageResponse.js';
import { tableToRead } from '../v2Structures.js';

/** `GET /v2/reporting/{table_id}/records`: a data table's records as v2 writes them (docs/rules.md#v2-reads). */
export const getV2Records = (deps: HandlerDeps): OperationHandler => {
  const limits = contractPageLimits().getV2Records;
  return async (api, ctx) => {
    const id = validatedPath<'getV2Records'>(api).table_id;
    const structure = await tableToRead(deps.store, ctx.state.principal, id);
    await respondWithV2Page(ctx, deps, { id, structure, path: `/v2/reporting/${id}/records`, limits }, validatedQuery<'getV2Records'>(api));
  };
};
