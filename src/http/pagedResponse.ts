import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { encodeCursor, readCursor } from '../domain/cursor.js';
import { firstPosition, pageOutcome, parsePageRequest, type PageRequest } from '../domain/paging.js';
import type { PagedSource } from '../store/pagedReads.js';
import { problems } from './problems.js';
import { publicBase, type PublicBaseConfig } from './publicBase.js';

/** Bytes (roughly: UTF-16 units) of JSON written to the socket at a time. */
const CHUNK_SIZE = 64 * 1024;

export interface PageTarget {
  /** Path of the operation as a client writes it (encoded), without query. */
  path: string;
  /** Filters to carry into `next` besides `limit` and `offset`. */
  params?: Readonly<Record<string, string | undefined>>;
}

/**
 * The one paged-read path (D2) of every list operation: parses `offset` and `limit` exactly,
 * reads up to `limit + 1` rows by position (the extra row says whether a next page exists, so
 * no page counts), and streams the envelope to the socket in chunks, respecting backpressure.
 * The rows are read in one statement (`.all()`): a page is one consistent snapshot, and no
 * cursor stays open on the connection while a slow client drains (writes would block on it).
 * Sources that seek by key (see `PagedSource.seek`) also put an opaque `cursor` into `next`.
 */
export function respondWithPage(ctx: Context, config: PublicBaseConfig, source: PagedSource, target: PageTarget): void {
  const request = parsePageRequest(ctx.query.offset, ctx.query.limit);
  if (Array.isArray(request)) throw problems.badRequest(request);
  ctx.type = 'application/json';
  if (request.limit === 0) {
    ctx.body = `{"count":${source.total()},"data":[]}`;
    return;
  }
  const from = firstPosition(request.offset);
  const { rows, keys } = from === undefined ? { rows: [] } : readRows(ctx, source, target, request, from);
  const { count, nextOffset } = pageOutcome(request, rows.length);
  const cursor = nextOffset !== undefined && keys ? encodeCursor(nextOffset, scopeOf(target), keys[count - 1]!) : undefined;
  const next = nextOffset === undefined ? undefined : nextUrl(ctx, config, target, request, nextOffset, cursor);
  const chunks = pageChunks(rows, count, next);
  ctx.body = rowsLength(rows, count) < CHUNK_SIZE ? [...chunks].join('') : Readable.from(chunks, { objectMode: false });
}

/**
 * The rows of the page, up to `limit + 1`. A source that seeks by key reads after the key of
 * the request's `cursor` when it was issued for this offset and these filters, and from the
 * position otherwise; its keys come back for the `cursor` of `next`.
 */
function readRows(
  ctx: Context,
  source: PagedSource,
  target: PageTarget,
  request: PageRequest,
  from: number,
): { rows: string[]; keys?: string[] } {
  const n = request.limit + 1;
  if (!source.seek) return { rows: source.rows(from, n) };
  const cursor = ctx.query.cursor;
  if (cursor !== undefined && typeof cursor !== 'string') throw badCursor();
  const reading = cursor === undefined ? undefined : readCursor(cursor, request.offset, scopeOf(target));
  if (reading?.kind === 'malformed') throw badCursor();
  const keyed = reading?.kind === 'key' ? source.seek.rowsAfter(reading.key, n) : source.seek.keyedRows(from, n);
  if (!keyed) throw badCursor();
  return { rows: keyed.map(([row]) => row), keys: keyed.map(([, key]) => key) };
}

const badCursor = () => problems.badRequest([{ pointer: '/query/cursor', message: 'is not a cursor this server issued' }]);

/** The filters a cursor is bound to. */
function scopeOf(target: PageTarget): string {
  return JSON.stringify(Object.entries(target.params ?? {}).filter(([, value]) => value !== undefined));
}

function* pageChunks(rows: readonly string[], count: number, next: string | undefined): Generator<string> {
  let chunk = `{"count":${count},"data":[`;
  for (let i = 0; i < count; i += 1) {
    chunk += i === 0 ? rows[i] : `,${rows[i]}`;
    if (chunk.length >= CHUNK_SIZE) {
      yield chunk;
      chunk = '';
    }
  }
  yield next === undefined ? `${chunk}]}` : `${chunk}],"next":${JSON.stringify(next)}}`;
}

function rowsLength(rows: readonly string[], count: number): number {
  let length = 0;
  for (let i = 0; i < count; i += 1) length += rows[i]!.length;
  return length;
}

function nextUrl(
  ctx: Context,
  config: PublicBaseConfig,
  target: PageTarget,
  request: PageRequest,
  offset: bigint,
  cursor: string | undefined,
): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(target.params ?? {})) if (value !== undefined) query.set(name, value);
  query.set('limit', String(request.limit));
  query.set('offset', String(offset));
  if (cursor !== undefined) query.set('cursor', cursor);
  return `${publicBase(ctx, config)}${target.path}?${query}`;
}
