import { schemaHash } from '../../domain/fieldListing.js';
import { v2FieldListing } from '../../domain/v2Shapes.js';
import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { validatedPath } from '../validatedQuery.js';
import { resolveStructure } from '../v2Structures.js';

/** `GET /v2/data-structures/{table_id}/fields`: the v2 fields of a structure's records, rendered from v1's field model. */
export const getV2StructureFields =
  (deps: HandlerDeps): OperationHandler =>
  async (api, ctx) => {
    const { table_id } = validatedPath<'getV2StructureFields'>(api);
    const fields = v2FieldListing((await resolveStructure(deps.store, ctx.state.principal, table_id)).fields);
    ctx.body = { schema_hash: schemaHash(fields), count: fields.length, fields };
  };
