import { reportingFields, schemaHash } from '../../domain/fieldListing.js';
import { markDeprecated } from '../deprecation.js';
import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';

/** `GET /v1/reporting/fields` (extension): the typed fields of the tenant's statement reporting records. */
export const getReportingFields =
  (deps: HandlerDeps): OperationHandler =>
  async (_api, ctx) => {
    const { metricKeys, dimensions } = await deps.store.reportingSchema(ctx.state.principal);
    const data = reportingFields(metricKeys, dimensions);
    markDeprecated(ctx, deps.publicBase, 'fields');
    ctx.body = { count: data.length, schema_hash: schemaHash(data), data };
  };
