import { structureId, type StructureOrigin } from '../../domain/v2Shapes.js';
import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { publicBase } from '../publicBase.js';
import { recordsPath } from '../v2Structures.js';

/** `GET /v2/data-structures`: the tenant's statement reporting, then its data tables by key. */
export const getV2DataStructures =
  (deps: HandlerDeps): OperationHandler =>
  async (_api, ctx) => {
    const { principal } = ctx.state;
    const [tables, statements] = await Promise.all([deps.store.tables(principal), deps.store.total(principal, { kind: 'reporting' })]);
    const base = publicBase(ctx, deps.publicBase);
    const entry = (origin: StructureOrigin, name: string, total: number) => {
      const id = structureId(origin);
      const links = { fields: `${base}/v2/data-structures/${id}/fields`, records: `${base}${recordsPath(id, origin)}` };
      return { id, name, type: origin.kind === 'statements' ? 'statement_reporting' : 'record_reporting', total_records: total, links };
    };
    ctx.body = {
      data: [
        entry({ kind: 'statements' }, 'Statement reporting', statements?.count ?? 0),
        ...tables.map((table) => entry({ kind: 'table', key: table.key }, table.name, table.recordCount)),
      ],
    };
  };
