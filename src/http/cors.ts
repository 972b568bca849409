import cors from '@koa/cors';
import type { Context, Middleware } from 'koa';

/**
 * Cross-origin requests from browser applications, off unless `--cors-origin` names origins
 * (or `*`). @koa/cors (the Koa project's own) answers preflights with 204 and adds the headers
 * to every answer, problems included; an origin that is not allowed gets no CORS header, and
 * its preflight falls through to the `405` of a method the path does not have.
 */
export function crossOrigin(origins: readonly string[]): Middleware | undefined {
  if (origins.length === 0) return undefined;
  const anyOrigin = origins.includes('*');
  const allowed = new Set(origins);
  return cors({
    origin: anyOrigin ? '*' : (ctx: Context) => (allowed.has(ctx.get('Origin')) ? ctx.get('Origin') : ''),
    allowMethods: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'],
    // A browser application reads its own writes as any client does: the token a write answers
    // with (Compdata-Consistency) is read from the answer and sent with the next read.
    allowHeaders: ['X-API-Key', 'Content-Type', 'If-None-Match', 'X-Request-Id', 'Compdata-Consistency', 'Idempotency-Key'],
    exposeHeaders: [
      'X-Request-Id',
      'ETag',
      'Retry-After',
      'RateLimit-Policy',
      'RateLimit',
      'Compdata-Fault',
      'Compdata-Consistency',
      'Compdata-Served-By',
      'Idempotent-Replayed',
    ],
    maxAge: 600,
    // The problem handler keeps the headers already set on the answer.
    keepHeadersOnError: false,
  });
}
