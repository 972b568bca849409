import type { components } from '../../../generated/api.js';
import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import type { PushBody } from '../pushBody.js';
import { problems } from '../problems.js';
import { publicBase } from '../publicBase.js';
import { validatedPath, validatedQuery } from '../validatedQuery.js';
import { idempotencyKeyOf, writtenOrRefused } from '../writeOutcome.js';

type Accepted = components['schemas']['ImportAccepted'];

/**
 * `POST /v1/tables/{data_table_key}/records/bulk` (docs/rules.md#table-imports). The body was
 * read as a stream before this runs (400, 413, 415): its lines are stored with the import they
 * join, and imported in the background; `202` with the import's id.
 */
export const pushTableRecords =
  ({ store, importsPushed, publicBase: base }: HandlerDeps): OperationHandler =>
  async (api, ctx) => {
    const table = validatedPath<'pushTableRecords'>(api).data_table_key;
    const query = validatedQuery<'pushTableRecords'>(api);
    if ((await store.tables(ctx.state.principal, table)).length === 0) throw problems.notFound(`No data table '${table}' exists.`);
    const { lines, staged, digest } = ctx.state.pushBody as PushBody;
    const push = { table, all: query.all === 'true', debounce: Number(query.debounce ?? 0), lines, digest };
    const written = writtenOrRefused(ctx, await store.pushRecords(ctx.state.principal, push, staged, { idempotencyKey: idempotencyKeyOf(ctx) }));
    importsPushed?.();
    const body: Accepted = written;
    ctx.status = 202;
    ctx.set('Location', `${publicBase(ctx, base)}/v1/imports/${encodeURIComponent(written.import_id)}`);
    ctx.body = body;
  };
