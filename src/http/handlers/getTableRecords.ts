import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { respondWithChanges } from '../changesResponse.js';
import { respondWithPage } from '../pagedResponse.js';

/** `GET /v1/tables/{data_table_key}/records`: a data table's records, paged (docs/rules.md#paging), or those changed since a sync token. */
export const getTableRecords =
  (deps: HandlerDeps): OperationHandler =>
  (api, ctx) => {
    const table = String(api.request.params.data_table_key);
    const target = { path: `/v1/tables/${encodeURIComponent(table)}/records` };
    if (ctx.query.changed_since !== undefined) return respondWithChanges(ctx, deps, { kind: 'tableRecords', table }, target);
    return respondWithPage(ctx, deps, { kind: 'tableRecords', table }, target);
  };
