import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { encodeCursor, readCursor } from '../domain/cursor.js';
import { firstPosition, pageOutcome, parsePageRequest, type PageRequest } from '../domain/paging.js';
import type { PagedSource } from '../store/pagedReads.js';
import { problems } from './problems.js';
import { publicBase, type PublicBaseConfig } from './publicBase.js';

/** Bytes of JSON written to the socket at a time. */
const CHUNK_SIZE = 64 * 1024;

export interface PageTarget {
  /** Path of the operation as a client writes it (encoded), without query. */
  path: string;
  /** Filters to carry into `next` besides `limit` and `offset`. */
  params?: Readonly<Record<string, string | undefined>>;
}

/**
 * The one paged-read path (D2) of every list operation: parses `offset` and `limit` exactly,
 * reads the page in one statement (a consistent snapshot; no cursor stays open on the
 * connection while a slow client drains, which would block writes), learns from the source
 * whether a record follows (so no page counts), and streams the envelope to the socket in
 * chunks, respecting backpressure. Sources that seek by key (see `PagedSource.seek`) also put an
 * opaque `cursor` into `next`.
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
  const page = from === undefined ? EMPTY_PAGE : readPage(ctx, source, target, request, from);
  const { count, nextOffset } = pageOutcome(request, page.count + (page.more ? 1 : 0));
  const cursor = nextOffset !== undefined && page.lastKey !== undefined ? encodeCursor(nextOffset, scopeOf(target), page.lastKey) : undefined;
  const next = nextOffset === undefined ? undefined : nextUrl(ctx, config, target, request, nextOffset, cursor);
  const head = Buffer.from(`{"count":${count},"data":[`);
  const tail = Buffer.from(next === undefined ? ']}' : `],"next":${JSON.stringify(next)}}`);
  ctx.length = head.length + page.json.length + tail.length;
  ctx.body = ctx.length <= CHUNK_SIZE ? Buffer.concat([head, page.json, tail]) : Readable.from(chunks(head, page.json, tail));
}

interface Page {
  count: number;
  /** The records' JSON, comma-separated, UTF-8. */
  json: Buffer;
  more: boolean;
  /** The key of the last record, from sources that seek by key. */
  lastKey?: string;
}

const EMPTY_PAGE: Page = { count: 0, json: Buffer.alloc(0), more: false };

/**
 * Up to `limit` records and whether more follow. A source that seeks by key reads after the key
 * of the request's `cursor` when it was issued for this offset and these filters, and from the
 * position otherwise; the key of its last record goes into the `cursor` of `next`.
 */
function readPage(ctx: Context, source: PagedSource, target: PageTarget, request: PageRequest, from: number): Page {
  const { limit } = request;
  if (source.joined && !source.seek) return source.joined(from, limit);
  if (!source.seek) return joinRows(source.rows(from, limit + 1), limit);
  const cursor = ctx.query.cursor;
  if (cursor !== undefined && typeof cursor !== 'string') throw badCursor();
  const reading = cursor === undefined ? undefined : readCursor(cursor, request.offset, scopeOf(target));
  if (reading?.kind === 'malformed') throw badCursor();
  const keyed = reading?.kind === 'key' ? source.seek.rowsAfter(reading.key, limit + 1) : source.seek.keyedRows(from, limit + 1);
  if (!keyed) throw badCursor();
  const page = joinRows(keyed.map(([row]) => row), limit);
  return page.count === 0 ? page : { ...page, lastKey: keyed[page.count - 1]![1] };
}

/** A page from up to `limit + 1` separately read rows (the extra one says whether more follow). */
function joinRows(rows: readonly string[], limit: number): Page {
  const count = Math.min(rows.length, limit);
  return { count, json: Buffer.from(rows.slice(0, count).join(',')), more: rows.length > limit };
}

/** The envelope in chunks of at most CHUNK_SIZE bytes, sharing the page's memory. */
function* chunks(head: Buffer, json: Buffer, tail: Buffer): Generator<Buffer> {
  yield head;
  for (let at = 0; at < json.length; at += CHUNK_SIZE) yield json.subarray(at, at + CHUNK_SIZE);
  yield tail;
}

const badCursor = () => problems.badRequest([{ pointer: '/query/cursor', message: 'is not a cursor this server issued' }]);

/** The filters a cursor is bound to. */
function scopeOf(target: PageTarget): string {
  return JSON.stringify(Object.entries(target.params ?? {}).filter(([, value]) => value !== undefined));
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
