import type { Middleware } from 'koa';
import { publicBase, type PublicBaseConfig } from './publicBase.js';

/**
 * `GET /` (and `HEAD /`): `302` to the API reference, `/docs` under the server's public base
 * (as `next` URLs are built). Not an operation of the contract: it is declared among the answers
 * to requests that match none (`x-compdata-unmatched-responses`).
 */
export function redirectRootToDocs(config: PublicBaseConfig): Middleware {
  return async (ctx, next) => {
    if (ctx.path !== '/' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) {
      await next();
      return;
    }
    ctx.status = 302;
    ctx.set('Location', `${publicBase(ctx, config)}/docs`);
    // An empty body (Koa would write "Found"; a null body would turn the status into 204).
    ctx.body = '';
    ctx.remove('Content-Type');

  };
}
