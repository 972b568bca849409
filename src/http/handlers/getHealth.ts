import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';

/** `GET /healthz`: the database answers a read; and, when the server injects faults on demand, which. */
export const getHealth =
  ({ store, faults }: HandlerDeps): OperationHandler =>
  async (_api, ctx) => {
    await store.health();
    ctx.body = faults ? { status: 'ok', faults: faults.text } : { status: 'ok' };
  };
