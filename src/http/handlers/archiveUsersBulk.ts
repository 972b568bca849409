import type { components } from '../../../generated/api.js';
import { archiveEnd } from '../../domain/archiveItems.js';
import { parseMonth } from '../../domain/months.js';
import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { idempotencyKeyOf, writtenOrRefused } from '../writeOutcome.js';

type Body = components['schemas']['ArchiveBulkBody'];
type Success = components['schemas']['ArchiveSuccessResponse'];

/**
 * `DELETE /v1/users/archive/bulk` (docs/rules.md#archived-users). The body was read and checked
 * against the schema before this runs (400, 413, 415), so every month parses; an item without
 * `end_date` ends in the current month (UTC) when the request arrives. Here: the store's
 * transaction (422 for a broken rule, with nothing written), then the hosted API's answer.
 */
export const archiveUsersBulk =
  ({ store }: HandlerDeps): OperationHandler =>
  async (_api, ctx) => {
    const { data } = ctx.state.body as Body;
    const now = new Date();
    const items = data.map((item) => ({ user: item.user, end: archiveEnd(item.end_date === undefined ? undefined : parseMonth(item.end_date)!, now) }));
    writtenOrRefused(ctx, await store.archiveUsers(ctx.state.principal, items, { idempotencyKey: idempotencyKeyOf(ctx) }));
    const body: Success = { message: 'users archived successfully' };
    ctx.body = body;
  };
