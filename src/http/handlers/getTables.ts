import { schemaHash } from '../../domain/fieldListing.js';
import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { publicBase } from '../publicBase.js';

/** `GET /v1/tables` (extension): the tenant's data tables, their record counts and where to read them. */
export const getTables =
  (deps: HandlerDeps): OperationHandler =>
  async (_api, ctx) => {
    const tables = await deps.store.tables(ctx.state.principal);
    const base = publicBase(ctx, deps.publicBase);
    const data = tables.map(({ key, name, recordCount }) => {
      const path = `${base}/v1/tables/${encodeURIComponent(key)}`;
      return { key, name, record_count: recordCount, records_url: `${path}/records`, fields_url: `${path}/fields` };
    });
    const structure = tables.map(({ key, fields }) => [key, fields]);
    ctx.body = { count: data.length, schema_hash: schemaHash(structure), data };
  };
