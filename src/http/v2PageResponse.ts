import type { Context } from 'koa';
import { nextLink } from '../domain/nextLink.js';
import type { LimitBounds } from '../domain/paging.js';
import { storedTimeOf, type Structure } from '../domain/v2Json.js';
import { answeredNotModified } from './conditionalRead.js';
import type { HandlerDeps, RequestState } from './handlerTypes.js';
import { sendJoined } from './pagedResponse.js';
import { problems } from './problems.js';
import { publicBase } from './publicBase.js';
import { unknownStructure } from './v2Structures.js';

/** The query of a v2 page as the contract accepted it (text, see validatedQuery.ts). */
export interface V2PageQuery {
  readonly start_id?: string;
  readonly limit?: string;
  readonly last_modified_after?: string;
  readonly last_modified_before?: string;
}

/**
 * A v2 page on the wire (docs/rules.md#v2-reads): the times of the filters as stored, the page
 * from the store, `304` when the client holds it, else `{"data":[…],"meta":{…}}` streamed as
 * v1's pages are, `next_url` carrying the filters.
 */
export async function respondWithV2Page(
  ctx: Context & { state: RequestState },
  { store, publicBase: config }: Pick<HandlerDeps, 'store' | 'publicBase'>,
  structure: { id: string; structure: Structure; path: string; limits: LimitBounds },
  query: V2PageQuery,
): Promise<void> {
  const { id, path } = structure;
  // The contract has checked the range of a `limit` given (`structure.limits`, its bounds).
  const limit = query.limit === undefined ? structure.limits.default : Number(query.limit);
  const modifiedAfter = timeOf(query.last_modified_after, 'down', 'last_modified_after');
  const modifiedBefore = timeOf(query.last_modified_before, 'up', 'last_modified_before');
  const page = await store.v2Page(ctx.state.principal, structure.structure, { startId: query.start_id, limit, modifiedAfter, modifiedBefore });
  if (page === 'unknownStructure') throw unknownStructure(id);
  if (page === 'badStartId') throw problems.badRequest([{ pointer: '/query/start_id', message: 'is not the id of a record of this data structure' }]);
  const base = publicBase(ctx, config);
  if (answeredNotModified(ctx, page.version, base)) return;
  ctx.state.recordsServed = page.count;
  const filters = [['last_modified_after', query.last_modified_after], ['last_modified_before', query.last_modified_before]] as const;
  const next = page.nextStartId === undefined ? null : nextLink({ base, path, params: filters }, { kind: 'v2', limit, startId: page.nextStartId });
  const meta = { next_start_id: page.nextStartId ?? null, has_more: page.nextStartId !== undefined, next_url: next };
  sendJoined(ctx, '{"data":[', page.json, `],"meta":${JSON.stringify(meta)}}`);
}

function timeOf(text: string | undefined, direction: 'down' | 'up', name: string): string | undefined {
  if (text === undefined) return undefined;
  const time = storedTimeOf(text, direction);
  if (time === undefined) throw problems.badRequest([{ pointer: `/query/${name}`, message: 'must be a date-time of the years 0000 to 9999' }]);
  return time;
}
