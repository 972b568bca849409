import type { Context } from 'koa';
import { nextLink } from '../domain/nextLink.js';
import { parsePageRequest, type LimitBounds, type ParamProblem } from '../domain/paging.js';
import type { ChangedSource } from '../store/vocabulary/readShapes.js';
import { answeredNotModified } from './conditionalRead.js';
import type { HandlerDeps, RequestState } from './handlerTypes.js';
import { linkTarget, sendEnvelope, unknownTable, type PageTarget } from './pagedResponse.js';
import { problems } from './problems.js';
import { publicBase } from './publicBase.js';

/**
 * Parameters a `changed_since` walk cannot take: it goes on from the token in its `next`, and it
 * returns every changed record (a filtered copy would miss the records that leave the filter).
 */
const NOT_WITH_CHANGED_SINCE = ['offset', 'cursor', 'user', 'date_from', 'date_to', 'plan'] as const;

/** The rest of the query of a `changed_since` request, as the contract accepted it (see validatedQuery.ts). */
export type ChangesQuery = { readonly [Name in 'limit' | (typeof NOT_WITH_CHANGED_SINCE)[number]]?: string };

/**
 * Incremental sync (`changed_since`) on the wire side: the records changed after the token, in
 * change order, with the paged envelope. `next` carries `limit` and the token of the position
 * reached; the last page carries `sync_token` instead, the token of the next sync. A token this
 * server did not issue for this listing is a `400`; one from before the tenant's data was
 * replaced is a `410`, which asks for a new sync from `changed_since=0`.
 */
export async function respondWithChanges(
  ctx: Context & { state: RequestState },
  { store, publicBase: config }: Pick<HandlerDeps, 'store' | 'publicBase'>,
  source: ChangedSource,
  target: PageTarget,
  since: string,
  query: ChangesQuery,
): Promise<void> {
  const limit = changesLimit(query, target.limits);
  const page = await store.changes(ctx.state.principal, source, { since, limit });
  if (page === 'unknownTable') throw unknownTable(source.kind === 'tableRecords' ? source.table : '');
  if (page === 'badToken') throw problems.badRequest([{ pointer: '/query/changed_since', message: 'is not a sync token this server issued for this listing' }]);
  if (page === 'resync') throw problems.syncExpired();
  const base = publicBase(ctx, config);
  if (answeredNotModified(ctx, page.version, base)) return;
  if (page.next === undefined) return sendEnvelope(ctx, page, { sync_token: page.syncToken! });
  sendEnvelope(ctx, page, { next: nextLink(linkTarget(base, target), { kind: 'sync', limit, token: page.next }) });
}

/** `limit` (1 to the contract's maximum) beside `changed_since`; `offset`, `cursor` and the filters are refused there. */
function changesLimit(query: ChangesQuery, limits: LimitBounds): number {
  const errors: ParamProblem[] = [];
  for (const name of NOT_WITH_CHANGED_SINCE) {
    if (query[name] !== undefined) errors.push({ pointer: `/query/${name}`, message: 'cannot be combined with changed_since' });
  }
  const request = parsePageRequest(undefined, query.limit, limits);
  if (Array.isArray(request)) errors.push(...request);
  else if (request.limit === 0) errors.push({ pointer: '/query/limit', message: 'must be at least 1 with changed_since' });
  if (errors.length > 0) throw problems.badRequest(errors);
  return (request as { limit: number }).limit;
}
