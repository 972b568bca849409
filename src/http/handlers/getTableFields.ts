import { schemaHash, tableFields } from '../../domain/fieldListing.js';
import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { validatedPath } from '../validatedQuery.js';
import { unknownTable } from '../pagedResponse.js';

/** `GET /v1/tables/{data_table_key}/fields` (extension): the typed fields of a data table's records. */
export const getTableFields =
  (deps: HandlerDeps): OperationHandler =>
  async (api, ctx) => {
    const table = validatedPath<'getTableFields'>(api).data_table_key;
    const [found] = await deps.store.tables(ctx.state.principal, table);
    if (!found) throw unknownTable(table);
    const data = tableFields(found.fields);
    ctx.body = { table: found.key, count: data.length, schema_hash: schemaHash(data), data };
  };
