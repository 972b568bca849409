import type { Middleware } from 'openapi-fetch';
import type { components } from '../../generated/api.js';
import { dataOf, type Answer } from './problemError.js';

/** Where a walk starts and how it pages. */
export interface PageOptions {
  /** Position of the first record (default 0). */
  offset?: components['parameters']['Offset'];
  /** Records per page, 1 to 2000 (default: the server's, 2000). 0 asks for the total only: one page, no records. */
  limit?: components['parameters']['Limit'];
  /** Stops the walk: the pending request is cancelled and the iterator throws the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Sends one page request through openapi-fetch: the operation's path with its query for the
 * first page; `middleware` (given for every later page) sends it to the next page's URL instead.
 */
export type PageRequest<P> = (init: { signal: AbortSignal | undefined; middleware: Middleware[] }) => Promise<Answer<P>>;

/**
 * Every page from the first request on, following the URL of the next page exactly as the
 * server gives it (`nextOf`: v1's `next`, v2's `meta.next_url`; absent or `null` on the last
 * page): the URL is never rebuilt from `offset`, `start_id` or `limit`, so the read-backs' opaque
 * `cursor` and v2's filters ride along and the server seeks by key. openapi-fetch builds URLs
 * only from a path template and parameters, so a later page is still sent as the same typed
 * operation (same headers, retries, parsing and response type) and a middleware swaps in the
 * next URL as the request's URL.
 *
 * The next URL is followed only on the origin of `baseUrl`: the request carries the API key,
 * and a server whose `--public-url` names another origin would otherwise send it there. Give the
 * client the server's public URL as `baseUrl`.
 */
export async function* walkPages<P>(
  request: PageRequest<P>,
  nextOf: (page: P) => string | null | undefined,
  baseUrl: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<P, void, undefined> {
  let next: string | undefined;
  do {
    signal?.throwIfAborted();
    if (next !== undefined) assertSameOrigin(next, baseUrl);
    const middleware = next === undefined ? [] : [sendTo(next)];
    const page = dataOf(await request({ signal, middleware }));
    next = nextOf(page) ?? undefined;
    yield page;
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
