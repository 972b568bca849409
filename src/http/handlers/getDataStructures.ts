import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { publicBase } from '../publicBase.js';
import { STATEMENTS_ID, tableStructures } from '../v2Structures.js';

/** `GET /v2/data-structures`: the tenant's statement reporting, then its data tables (docs/rules.md#v2-reads). */
export const getDataStructures =
  (deps: HandlerDeps): OperationHandler =>
  async (_api, ctx) => {
    const { principal } = ctx.state;
    const [statements, tables] = await Promise.all([deps.store.total(principal, { kind: 'reporting' }), tableStructures(deps.store, principal)]);
    const base = publicBase(ctx, deps.publicBase);
    const links = (id: string, records: string) => ({ fields: `${base}/v2/data-structures/${id}/fields`, records: `${base}/v2/reporting/${id}/${records}` });
    const data = [
      { id: STATEMENTS_ID, name: 'Statement reporting', type: 'statement_reporting', total_records: statements?.count ?? 0, links: links(STATEMENTS_ID, 'statements') },
      ...tables.map(({ id, table }) => ({ id, name: table!.name, type: 'record_reporting', total_records: table!.recordCount, links: links(id, 'records') })),
    ];
    ctx.body = { data };
  };
