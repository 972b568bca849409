import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';

export const getOpenApiDocument =
  ({ documentJson }: HandlerDeps): OperationHandler =>
  (_api, ctx) => {
    ctx.type = 'application/json';
    ctx.body = documentJson;
  };
