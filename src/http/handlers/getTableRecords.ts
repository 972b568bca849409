import { problems } from '../problems.js';
import { respondWithPage } from '../pagedResponse.js';
import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';

export const getTableRecords =
  ({ reads, publicBase }: HandlerDeps): OperationHandler =>
  (api, ctx) => {
    const tableKey = String(api.request.params.data_table_key);
    // The same answer whether or not another tenant has the key (D6).
    const source = reads.tableRecords(ctx.state.principal.tenantId, tableKey);
    if (!source) throw problems.notFound(`No data table ${JSON.stringify(tableKey)} exists.`);
    respondWithPage(ctx, publicBase, source, { path: `/v1/tables/${encodeURIComponent(tableKey)}/records` });
  };
