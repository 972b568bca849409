import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';

/** `GET /docs`: the interactive API reference (no key needed). */
export const getDocsPage =
  ({ docs }: HandlerDeps): OperationHandler =>
  (_api, ctx) => {
    ctx.type = docs.page.type;
    ctx.body = docs.page.body;
  };
