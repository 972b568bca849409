import type { Context } from 'koa';
import { modifiedBetween, v2Record, type StructureOrigin } from '../domain/v2Shapes.js';
import type { HandlerDeps, RequestState } from './handlerTypes.js';
import { problems } from './problems.js';
import { publicBase } from './publicBase.js';
import { recordsPath, resolveStructure, unknownStructure } from './v2Structures.js';

/** The paging parameters of a v2 read, as the contract accepted them (see validatedQuery.ts). */
interface V2PagingQuery {
  readonly start_id?: string;
  readonly limit?: string;
  readonly last_modified_after?: string;
  readonly last_modified_before?: string;
}

const DEFAULT_LIMIT = 2000;

/**
 * The paged read of v2 (docs/rules.md#v2-reads): the structure `id` names (a 404 when it is none
 * of the tenant's, or not of `kind`), the page after `start_id` read through the store as v1
 * reads it, each record rendered as v2 renders it, and `meta` with the next page's `start_id`
 * and URL while more follow.
 */
export async function respondWithV2Page(
  ctx: Context & { state: RequestState },
  { store, publicBase: config }: Pick<HandlerDeps, 'store' | 'publicBase'>,
  kind: StructureOrigin['kind'],
  id: string,
  query: V2PagingQuery,
): Promise<void> {
  const { principal } = ctx.state;
  const structure = await resolveStructure(store, principal, id);
  if (structure.origin.kind !== kind) throw unknownStructure(id);
  const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
  const modified = modifiedBetween(query.last_modified_after, query.last_modified_before);
  const page = await store.v2Page(principal, structure.source, { startId: query.start_id, limit, modified });
  if (page === 'unknownTable') throw unknownStructure(id);
  if (page === 'unknownStartId') throw problems.badRequest([{ pointer: '/query/start_id', message: 'is not the id of a record of this data structure' }]);
  const v1 = page.rows.map(([text]) => JSON.parse(text) as Record<string, unknown>);
  const emails = await emailsOfUserFields(structure.fields, v1, (ids) => store.userEmails(principal, ids));
  const data = v1.map((record, i) => v2Record(structure.fields, record, page.rows[i]![1], (userId) => emails.get(userId) ?? null));
  const nextStartId = page.more ? (data.at(-1)!['standard.id'] as string) : null;
  const carried = { last_modified_after: query.last_modified_after, last_modified_before: query.last_modified_before };
  const params = new URLSearchParams(Object.entries(carried).filter((entry): entry is [string, string] => entry[1] !== undefined));
  params.set('start_id', nextStartId ?? '');
  params.set('limit', String(limit));
  const next = nextStartId === null ? null : `${publicBase(ctx, config)}${recordsPath(id, structure.origin)}?${params}`;
  ctx.state.recordsServed = data.length;
  // Stringified here once: given an object, Koa stringifies it twice (for its length, then to send it).
  ctx.type = 'application/json';
  ctx.body = JSON.stringify({ data, meta: { next_start_id: nextStartId, has_more: page.more, next_url: next } });
}

/** The e-mail addresses of the users that the data-table user fields of `records` name (none asked when there are none). */
async function emailsOfUserFields(
  fields: { kind: string; v1Name: string }[],
  records: readonly Record<string, unknown>[],
  lookUp: (ids: string[]) => Promise<Map<string, string>>,
): Promise<Map<string, string>> {
  const userFields = fields.filter((field) => field.kind === 'user_id').map((field) => field.v1Name);
  const ids = new Set<string>();
  for (const record of records) for (const name of userFields) if (typeof record[name] === 'string') ids.add(record[name]);
  return ids.size === 0 ? new Map() : lookUp([...ids]);
}
