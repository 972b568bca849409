import { reportingFields, schemaHash, tableFields } from '../../domain/fieldListing.js';
import { v2StatementFields, v2TableFields } from '../../domain/v2Fields.js';
import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { validatedPath } from '../validatedQuery.js';
import { STATEMENTS_ID, tableStructure } from '../v2Structures.js';

/** `GET /v2/data-structures/{table_id}/fields`: v1's field model of the structure, rendered for v2 (docs/rules.md#v2-reads). */
export const getDataStructureFields =
  (deps: HandlerDeps): OperationHandler =>
  async (api, ctx) => {
    const id = validatedPath<'getDataStructureFields'>(api).table_id;
    const { principal } = ctx.state;
    let fields;
    if (id === STATEMENTS_ID) {
      const schema = await deps.store.reportingSchema(principal);
      fields = v2StatementFields(reportingFields(schema.metricKeys, schema.dimensions));
    } else {
      fields = v2TableFields(tableFields((await tableStructure(deps.store, principal, id)).table!.fields));
    }
    ctx.body = { schema_hash: schemaHash(fields), count: fields.length, fields };
  };
