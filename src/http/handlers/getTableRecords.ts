import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { respondWithPage } from '../pagedResponse.js';

/** `GET /v1/tables/{data_table_key}/records`: a data table's records, paged (D2, D6). */
export const getTableRecords =
  (deps: HandlerDeps): OperationHandler =>
  (api, ctx) => {
    const table = String(api.request.params.data_table_key);
    return respondWithPage(ctx, deps, { kind: 'tableRecords', table }, { path: `/v1/tables/${encodeURIComponent(table)}/records` });
  };
