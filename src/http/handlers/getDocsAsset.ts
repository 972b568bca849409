import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { problems } from '../problems.js';
import { validatedPath } from '../validatedQuery.js';

/** `GET /docs/{asset}`: a file of the API reference page, from this server (never a CDN). */
export const getDocsAsset =
  ({ docs }: HandlerDeps): OperationHandler =>
  (api, ctx) => {
    const name = validatedPath<'getDocsAsset'>(api).asset;
    const asset = docs.byName.get(name);
    if (!asset) throw problems.notFound(`No file ${JSON.stringify(name)} belongs to the API reference.`);
    // The files change only with the server's version: a browser may keep them for an hour.
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.type = asset.type;
    ctx.body = asset.body;
  };
