import type { components } from '../../../generated/api.js';
import { userUpsertOf } from '../../domain/userItems.js';
import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { idempotencyKeyOf, writtenOrRefused } from '../writeOutcome.js';

type Body = components['schemas']['UsersBulkPutBody'];
type Success = components['schemas']['UsersBulkSuccessResponse'];

/**
 * `PUT /v1/users/bulk` (docs/rules.md#users). The body was read and checked against the schema
 * before this runs (400, 413, 415). Here: the store's transaction (422 for a broken rule, with
 * nothing written; 503 when another writer holds the database past the busy timeout), then the
 * users as stored, in request order.
 */
export const upsertUsersBulk =
  ({ store }: HandlerDeps): OperationHandler =>
  async (_api, ctx) => {
    const { data } = ctx.state.body as Body;
    const written = writtenOrRefused(ctx, await store.upsertUsers(ctx.state.principal, data.map(userUpsertOf), { idempotencyKey: idempotencyKeyOf(ctx) }));
    const body: Success = { count: written.length, data: written as Success['data'] };
    ctx.body = body;
  };
