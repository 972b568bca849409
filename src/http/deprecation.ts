import type { Context } from 'koa';
import type { HandlerDeps } from './handlerTypes.js';
import { publicBase } from './publicBase.js';
import { STATEMENTS_ID } from './v2Structures.js';

/**
 * The v1 reporting routes are deprecated in favour of the v2 reads at the end of 2026
 * (docs/rules.md#v2-reads): RFC 9745's `Deprecation` (a date as `@` and Unix seconds), RFC 8594's
 * `Sunset`, and a `Link` to the v2 route that replaces the one answering.
 */
const END_OF_2026 = Date.UTC(2026, 11, 31, 23, 59, 59);

/** The two headers' values, the same on every answer: made once. */
const DEPRECATION = `@${END_OF_2026 / 1000}`;
const SUNSET = new Date(END_OF_2026).toUTCString();
const SUCCESSORS = {
  statements: `/v2/reporting/${STATEMENTS_ID}/statements`,
  fields: `/v2/data-structures/${STATEMENTS_ID}/fields`,
};

export function markDeprecated(ctx: Context, config: HandlerDeps['publicBase'], successor: 'statements' | 'fields'): void {
  ctx.set('Deprecation', DEPRECATION);
  ctx.set('Sunset', SUNSET);
  ctx.set('Link', `<${publicBase(ctx, config)}${SUCCESSORS[successor]}>; rel="successor-version"`);
}
