import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';

/** `GET /healthz`: the database answers a read. */
export const getHealth =
  ({ store }: HandlerDeps): OperationHandler =>
  async (_api, ctx) => {
    await store.health();
    ctx.body = { status: 'ok' };
  };
