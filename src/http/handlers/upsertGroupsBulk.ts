import type { components } from '../../../generated/api.js';
import { echoItem, upsertsFromBody } from '../bulkItems.js';
import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { problems } from '../problems.js';
import { idempotencyKeyOf, writtenOrRefused } from '../writeOutcome.js';

type Body = components['schemas']['GroupsBulkPutBody'];
type Success = components['schemas']['GroupsBulkSuccessModelResponse'];

/**
 * `PUT /v1/users/groups/bulk` (docs/rules.md#bulk-attributions). The body was read and checked
 * against the schema before this runs (400, 413, 415). Here: the dates of each item (400), then
 * the store's transaction (422 for a broken rule, with nothing written; 503 when another writer
 * holds the database past the busy timeout), then the echo in request order.
 */
export const upsertGroupsBulk =
  ({ store }: HandlerDeps): OperationHandler =>
  async (_api, ctx) => {
    const { data } = ctx.state.body as Body;
    const parsed = upsertsFromBody(data);
    if ('problems' in parsed) throw problems.badRequest(parsed.problems, 'An item ends before it starts; nothing was written.');
    const { upserts } = parsed;
    const written = writtenOrRefused(ctx, await store.bulkUpsert(ctx.state.principal, upserts, { idempotencyKey: idempotencyKeyOf(ctx) }));
    const body: Success = { count: upserts.length, data: upserts.map((item, i) => echoItem(item, written[i]!)) };
    ctx.body = body;
  };
