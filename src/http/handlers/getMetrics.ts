import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';
import { problems } from '../problems.js';

/** `GET /metrics` (`serve --metrics`): the Prometheus text format; without the option, a 404 like any unknown path. */
export const getMetrics =
  ({ metrics }: HandlerDeps): OperationHandler =>
  async (_api, ctx) => {
    if (!metrics) throw problems.notFound(`No resource at ${ctx.path}.`);
    const { text, contentType } = await metrics.scrape();
    ctx.body = text;
    ctx.set('Content-Type', contentType);
  };
