import type { components } from '../../../generated/api.js';
import { renderImport } from '../../domain/importJson.js';
import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { problems } from '../problems.js';
import { validatedPath } from '../validatedQuery.js';

type DataImport = components['schemas']['DataImportResponse'];

/** `GET /v1/imports/{import_id}` (docs/rules.md#table-imports): an import of the caller's tenant and each of its tables. */
export const getImport =
  ({ store }: HandlerDeps): OperationHandler =>
  async (api, ctx) => {
    const id = validatedPath<'getImport'>(api).import_id;
    const stored = await store.importOf(ctx.state.principal, id);
    if (!stored) throw problems.notFound(`No import '${id}' exists.`);
    const body: DataImport = renderImport(stored);
    ctx.body = body;
  };
