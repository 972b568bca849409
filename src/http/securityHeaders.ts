import type { Middleware } from 'koa';

/**
 * Every answer: browsers take its `Content-Type` as it is, never sniffing another (a JSON body
 * read as HTML or script). Set before anything runs, so problems, 304s, redirects and the
 * probes carry it too; Node's own refusals write it in clientErrors.ts.
 */
export const NO_SNIFF = { name: 'X-Content-Type-Options', value: 'nosniff' } as const;

/**
 * The API reference page (`GET /docs`): what it may load and where it may go. Everything comes
 * from this server (Swagger UI styles its elements through the DOM, which `style-src` allows,
 * and draws its icons from `data:` images); its "Try it out" calls this server (`connect-src
 * 'self'`). No other page may frame it (a key typed under "Authorize" could otherwise be
 * clicked away), and its links send no referrer. test/http/docsBrowser.test.ts checks that
 * the page blocks nothing it does.
 */
const DOCS_PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const DOCS_PAGE_HEADERS = {
  'Content-Security-Policy': DOCS_PAGE_POLICY,
  'Referrer-Policy': 'no-referrer',
} as const;

/**
 * `X-Content-Type-Options: nosniff` on every answer of the app. Koa sends no `X-Powered-By`
 * and Node no `Server`; none is added. A few lines instead of helmet (through koa-helmet):
 * helmet's defaults set a dozen headers meant for web pages, several wrong for an API
 * (`Strict-Transport-Security` on a server that may speak plain HTTP behind its proxy), and
 * the one page that needs more gets its own (`DOCS_PAGE_HEADERS`, set by its handler).
 */
export function securityHeaders(): Middleware {
  return async (ctx, next) => {
    ctx.set(NO_SNIFF.name, NO_SNIFF.value);
    await next();
  };
}
