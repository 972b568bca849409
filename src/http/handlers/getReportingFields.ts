import { reportingFields, schemaHash } from '../../domain/fieldListing.js';
import { structureId } from '../../domain/v2Shapes.js';
import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { publicBase } from '../publicBase.js';
import { announceV1Sunset } from '../v1Sunset.js';

/** `GET /v1/reporting/fields` (extension): the typed fields of the tenant's statement reporting records. */
export const getReportingFields =
  (deps: HandlerDeps): OperationHandler =>
  async (_api, ctx) => {
    announceV1Sunset(ctx, `${publicBase(ctx, deps.publicBase)}/v2/data-structures/${structureId({ kind: 'statements' })}/fields`);
    const { metricKeys, dimensions } = await deps.store.reportingSchema(ctx.state.principal);
    const data = reportingFields(metricKeys, dimensions);
    ctx.body = { count: data.length, schema_hash: schemaHash(data), data };
  };
