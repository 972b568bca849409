import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { respondWithChanges } from '../changesResponse.js';
import { respondWithPage } from '../pagedResponse.js';
import { reportingFilterQuery } from '../reportingFilterQuery.js';
import { validatedQuery } from '../validatedQuery.js';
import { publicBase } from '../publicBase.js';
import { announceV1Sunset } from '../v1Sunset.js';
import { recordsPath } from '../v2Structures.js';
import { structureId } from '../../domain/v2Shapes.js';

/**
 * `GET /v1/reporting`: the tenant's statement reporting records, paged (docs/rules.md#paging),
 * optionally filtered (extension), or those changed since a sync token (extension; no filters
 * beside it).
 */
export const getReportingRecords =
  (deps: HandlerDeps): OperationHandler =>
  (api, ctx) => {
    const query = validatedQuery<'getReportingRecords'>(api);
    const target = { path: '/v1/reporting' };
    announceV1Sunset(ctx, `${publicBase(ctx, deps.publicBase)}${recordsPath(structureId({ kind: 'statements' }), { kind: 'statements' })}`);
    if (query.changed_since !== undefined) return respondWithChanges(ctx, deps, { kind: 'reporting' }, target, query.changed_since, query);
    const { filter, params } = reportingFilterQuery(query);
    return respondWithPage(ctx, deps, { kind: 'reporting', ...filter }, { ...target, params }, query);
  };
