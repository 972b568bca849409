import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';

export const getHealth =
  ({ db }: HandlerDeps): OperationHandler => {
    const ping = db.prepare('SELECT 1').pluck();
    return (_api, ctx) => {
      ping.get();
      ctx.body = { status: 'ok' };
    };
  };
