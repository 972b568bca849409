import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { DOCS_PAGE_HEADERS } from '../securityHeaders.js';

/** `GET /docs`: the interactive API reference (no key needed), with the policy it works under. */
export const getDocsPage =
  ({ docs }: HandlerDeps): OperationHandler =>
  (_api, ctx) => {
    ctx.set(DOCS_PAGE_HEADERS);
    ctx.type = docs.page.type;
    ctx.body = docs.page.body;
  };
