import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { nextLink } from '../domain/nextLink.js';
import { parsePageRequest, type LimitBounds } from '../domain/paging.js';
import type { Page, Source } from '../store/vocabulary/readShapes.js';
import { answeredNotModified } from './conditionalRead.js';
import type { HandlerDeps, RequestState } from './handlerTypes.js';
import { problems } from './problems.js';
import { publicBase } from './publicBase.js';

/** Bytes of JSON written to the socket at a time. */
const CHUNK_SIZE = 64 * 1024;

/**
 * The largest answer sent as one Buffer (a copy of the page) rather than as a stream of
 * chunks. Koa sends a stream through `stream.pipeline`, whose end makes an AbortError (a
 * DOMException with its stack) per answer: for a page of 100 records just past one chunk
 * that costs more than copying it (`make bench-profile SCENARIO=v2-deep-small` shows it).
 */
const ONE_BUFFER_LIMIT = 4 * CHUNK_SIZE;

export interface PageTarget {
  /** Path of the operation as a client writes it (encoded), without query. */
  path: string;
  /** Filters to carry into `next` besides `limit` and `offset`, in their order. */
  params?: Readonly<Record<string, string | undefined>>;
  /** The bounds of the operation's `limit`, the contract's (pageLimits.ts). */
  limits: LimitBounds;
}

/** The paging parameters of a request, as the contract accepted them (see validatedQuery.ts). */
export interface PagingQuery {
  readonly offset?: string;
  readonly limit?: string;
  readonly cursor?: string;
}

/**
 * The one paged-read path (docs/rules.md#paging) of every list operation, on the wire side:
 * parses `offset` and `limit` exactly, asks the store for the page (or, with `limit=0`, the
 * total), builds `next` (with the store's `cursor` when it gives one) and streams the envelope
 * to the socket in chunks, respecting backpressure; or answers `304` when the client holds the
 * page already (conditionalRead.ts). How a page is read is the store's business.
 */
export async function respondWithPage(
  ctx: Context & { state: RequestState },
  { store, publicBase: config }: Pick<HandlerDeps, 'store' | 'publicBase'>,
  source: Source,
  target: PageTarget,
  query: PagingQuery,
): Promise<void> {
  const request = parsePageRequest(query.offset, query.limit, target.limits);
  if (Array.isArray(request)) throw problems.badRequest(request);
  const { principal } = ctx.state;
  const base = publicBase(ctx, config);
  if (request.limit === 0) {
    const total = await store.total(principal, source);
    if (total === undefined) throw unknownTable(tableOf(source));
    if (answeredNotModified(ctx, total.version, base)) return;
    ctx.type = 'application/json';
    ctx.body = `{"count":${total.count},"data":[]}`;
    return;
  }
  const page = await store.page(principal, source, { offset: request.offset, limit: request.limit, cursor: query.cursor });
  if (page === 'unknownTable') throw unknownTable(tableOf(source));
  if (page === 'badCursor') throw badCursor();
  if (answeredNotModified(ctx, page.version, base)) return;
  ctx.state.recordsServed = page.count;
  const position = { kind: 'offset', limit: request.limit, offset: request.offset + BigInt(page.count), cursor: page.cursor } as const;
  writeEnvelope(ctx, page, page.more ? nextLink(linkTarget(base, target), position) : undefined);
}

function writeEnvelope(ctx: Context, page: Page, next: string | undefined): void {
  sendEnvelope(ctx, page, next === undefined ? {} : { next });
}

/** Sends `{"count":…,"data":[…]}` with the properties of `after` (JSON strings) after `data`, in chunks when large. */
export function sendEnvelope(ctx: Context, page: Pick<Page, 'count' | 'json'>, after: Readonly<Record<string, string>>): void {
  const tail = `]${Object.entries(after).map(([name, value]) => `,${JSON.stringify(name)}:${JSON.stringify(value)}`).join('')}}`;
  sendJoined(ctx, `{"count":${page.count},"data":[`, page.json, tail);
}

/** Sends `head`, the records' JSON (`json`) and `tail` as one JSON answer, in chunks when large. */
export function sendJoined(ctx: Context, headText: string, json: Buffer, tailText: string): void {
  const head = Buffer.from(headText);
  const tail = Buffer.from(tailText);
  ctx.type = 'application/json';
  ctx.length = head.length + json.length + tail.length;
  if (ctx.length <= ONE_BUFFER_LIMIT) {
    ctx.body = Buffer.concat([head, json, tail]);
    release(json);
  } else {
    ctx.body = Readable.from(chunks(head, json, tail));
    // Once the last byte has been handed to the socket (`finish`; not when the client went away
    // first, since a write may still be reading the memory), nothing reads the page any more.
    ctx.res.once('finish', () => release(json));
  }
}

/**
 * Gives a page's memory back at once instead of at the next full garbage collection. A page is
 * about a megabyte and a half outside the JavaScript heap, read into a Buffer of its own; its
 * Buffer outlives the young-generation collections while the page is sent, so the memory would
 * wait for a full collection of the whole heap, and V8 starts one after every few tens of
 * megabytes of such memory: about every 11 pages of 2000 records. Detaching the Buffer's memory
 * (`ArrayBuffer.prototype.transfer(0)`) frees it now. Only a Buffer that owns its whole
 * ArrayBuffer is released (never a slice of Node's pool of small Buffers).
 */
function release(json: Buffer): void {
  const memory = json.buffer as ArrayBuffer & { transfer?: (length: number) => ArrayBuffer };
  if (json.byteOffset === 0 && json.byteLength === memory.byteLength && json.byteLength > 0 && memory.transfer) memory.transfer(0);
}

/** The envelope in chunks of at most CHUNK_SIZE bytes, sharing the page's memory. */
function* chunks(head: Buffer, json: Buffer, tail: Buffer): Generator<Buffer> {
  yield head;
  for (let at = 0; at < json.length; at += CHUNK_SIZE) yield json.subarray(at, at + CHUNK_SIZE);
  yield tail;
}

const badCursor = () => problems.badRequest([{ pointer: '/query/cursor', message: 'is not a cursor this server issued' }]);

// The same answer whether or not another tenant has the key (docs/rules.md#data-tables).
export const unknownTable = (table: string) => problems.notFound(`No data table ${JSON.stringify(table)} exists.`);

const tableOf = (source: Source) => (source.kind === 'tableRecords' ? source.table : '');

/** Where a v1 listing's `next` points: its path on the public base, its filters in their order. */
export const linkTarget = (base: string, target: PageTarget) => ({ base, path: target.path, params: Object.entries(target.params ?? {}) });
