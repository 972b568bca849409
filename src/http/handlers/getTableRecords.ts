import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { respondWithChanges } from '../changesResponse.js';
import { contractPageLimits } from '../pageLimits.js';
import { respondWithPage } from '../pagedResponse.js';
import { validatedPath, validatedQuery } from '../validatedQuery.js';

/** `GET /v1/tables/{data_table_key}/records`: a data table's records, paged (docs/rules.md#paging), or those changed since a sync token. */
export const getTableRecords = (deps: HandlerDeps): OperationHandler => {
  const limits = contractPageLimits().getTableRecords;
  return (api, ctx) => {
    const table = validatedPath<'getTableRecords'>(api).data_table_key;
    const query = validatedQuery<'getTableRecords'>(api);
    const target = { path: `/v1/tables/${encodeURIComponent(table)}/records`, limits };
    if (query.changed_since !== undefined) return respondWithChanges(ctx, deps, { kind: 'tableRecords', table }, target, query.changed_since, query);
    return respondWithPage(ctx, deps, { kind: 'tableRecords', table }, target, query);
  };
};
