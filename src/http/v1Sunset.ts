import type { Context } from 'koa';

/**
 * The v1 reporting routes are deprecated in favour of v2 and go at the end of 2026, as on the
 * hosted product (docs/rules.md#v2-reads): their answers say so with `Deprecation` (RFC 9745,
 * a structured-field date) and `Sunset` (RFC 8594, an HTTP date) of that moment, and a `Link`
 * to the v2 route that replaces them (`successorUrl`, absolute).
 */
const END_OF_2026 = Date.UTC(2026, 11, 31, 23, 59, 59);

const V1_SUNSET_HEADERS = {
  Deprecation: `@${END_OF_2026 / 1000}`,
  Sunset: new Date(END_OF_2026).toUTCString(),
} as const;

export function announceV1Sunset(ctx: Context, successorUrl: string): void {
  ctx.set(V1_SUNSET_HEADERS);
  ctx.set('Link', `<${successorUrl}>; rel="successor-version"`);
}
