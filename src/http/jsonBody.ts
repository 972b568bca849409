import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { problems } from './problems.js';

/**
 * Reads a JSON request body of at most `limit` bytes: `415` when it is not declared as JSON
 * (`application/json` or `application/*+json`, UTF-8), `413` when it is larger than `limit`,
 * `400` when it does not parse.
 */
export async function readJsonBody(ctx: Context, limit: number): Promise<unknown> {
  assertJsonBody(ctx);
  let text: string;
  try {
    text = await getRawBody(ctx.req, { limit, encoding: 'utf-8', length: ctx.get('Content-Length') || undefined });
  } catch (error) {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') throw problems.payloadTooLarge(limit);
    throw problems.badRequest([{ pointer: '', message: 'the request body could not be read' }]);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw problems.badRequest([{ pointer: '', message: 'is not valid JSON' }], 'The request body is not valid JSON.');
  }
}

/** `415` unless the body is declared as JSON (`application/json` or `application/*+json`), in UTF-8. */
export function assertJsonBody(ctx: Context): void {
  if (!ctx.is('application/json', 'application/*+json')) throw problems.unsupportedMediaType();
  const charset = ctx.request.charset;
  if (charset && charset.toLowerCase() !== 'utf-8' && charset.toLowerCase() !== 'utf8') {
    throw problems.unsupportedMediaType();
  }
}
