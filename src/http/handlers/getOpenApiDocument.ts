import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { publicBase } from '../publicBase.js';

/** `GET /openapi.json`: the contract, its `servers` naming this server's public base. */
export const getOpenApiDocument =
  ({ document, publicBase: config }: HandlerDeps): OperationHandler =>
  (_api, ctx) => {
    ctx.type = 'application/json';
    ctx.body = document.servedJson(publicBase(ctx, config));
  };
