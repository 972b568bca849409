import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { contractPageLimits } from '../pageLimits.js';
import { validatedPath, validatedQuery } from '../validatedQuery.js';
import { respondWithV2Page } from '../v2PageResponse.js';
import { STATEMENTS_ID, unknownStructure } from '../v2Structures.js';

/** `GET /v2/reporting/{table_id}/statements`: the statement reporting records as v2 writes them (docs/rules.md#v2-reads). */
export const getV2Statements = (deps: HandlerDeps): OperationHandler => {
  const limits = contractPageLimits().getV2Statements;
  return (api, ctx) => {
    const id = validatedPath<'getV2Statements'>(api).table_id;
    if (id !== STATEMENTS_ID) throw unknownStructure(id);
    return respondWithV2Page(ctx, deps, { id, structure: { kind: 'statements' }, path: `/v2/reporting/${id}/statements`, limits }, validatedQuery<'getV2Statements'>(api));
  };
};
