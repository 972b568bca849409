import type { Middleware } from 'openapi-fetch';
import type { components } from '../../generated/api.js';
import { ProblemError } from './problemError.js';

/** Where a walk starts and how it pages. */
export interface PageOptions {
  /** Position of the first record (default 0). */
  offset?: components['parameters']['Offset'];
  /** Records per page, 1 to 2000 (default: the server's, 2000). 0 asks for the total only: one page, no records. */
  limit?: components['parameters']['Limit'];
  /** Stops the walk: the pending request is cancelled and the iterator throws the signal's reason. */
  signal?: AbortSignal;
}

/** What openapi-fetch answers for one operation (the shape of its `FetchResponse`, data narrowed to a page). */
interface Answer<P> {
  data?: P;
  error?: unknown;
  response: Response;
}

/**
 * Sends one page request through openapi-fetch: the operation's path with its query for the
 * first page; `middleware` (given for every later page) sends it to `next` instead.
 */
export type PageRequest<P> = (init: { signal: AbortSignal | undefined; middleware: Middleware[] }) => Promise<Answer<P>>;

/**
 * Every page from the first request on, following `next` exactly as the server gives it: the
 * URL is never rebuilt from `offset` and `limit`, so the read-backs' opaque `cursor` rides
 * along and the server seeks by key. openapi-fetch builds URLs only from a path template and
 * parameters, so a later page is still sent as the same typed operation (same headers, retries,
 * parsing and response type) and a middleware swaps in `next` as the request's URL.
 *
 * `next` is followed only on the origin of `baseUrl`: the request carries the API key, and a
 * server whose `--public-url` names another origin would otherwise send it there. Give the
 * client the server's public URL as `baseUrl`.
 */
export async function* walkPages<P extends { next?: string }>(request: PageRequest<P>, baseUrl: string, signal: AbortSignal | undefined): AsyncGenerator<P, void, undefined> {
  let next: string | undefined;
  do {
    signal?.throwIfAborted();
    if (next !== undefined) assertSameOrigin(next, baseUrl);
    const middleware = next === undefined ? [] : [sendTo(next)];
    const { data, error, response } = await request({ signal, middleware });
    if (!response.ok || data === undefined) throw ProblemError.fromAnswer(error, response);
    next = data.next;
    yield data;
  } while (next !== undefined);
}

/** The records of every page, in order. */
export async function* walkRecords<R>(pages: AsyncIterable<{ data: R[] }>): AsyncGenerator<R, void, undefined> {
  for await (const page of pages) yield* page.data;
}

/** A middleware that sends the request to `url`, keeping its method, headers and signal. */
function sendTo(url: string): Middleware {
  return { onRequest: ({ request }) => new Request(url, request) };
}

function assertSameOrigin(next: string, baseUrl: string): void {
  const nextOrigin = new URL(next).origin;
  const baseOrigin = new URL(baseUrl).origin;
  if (nextOrigin !== baseOrigin) {
    throw new Error(
      `The server's next page is on ${nextOrigin}, not on the client's baseUrl ${baseOrigin}: the API key is not sent there. ` +
        `Give createClient the server's public URL (its --public-url) as baseUrl.`,
    );
  }
}

/** The caller's signal and the client's, as one (either cancels). */
export function eitherSignal(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return AbortSignal.any([a, b]);
}
