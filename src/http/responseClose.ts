import type { ServerResponse } from 'node:http';

/**
 * Work to do once a response has closed (sent in full, or cut), run from one `close` listener
 * per response in the order it was asked for. The request log, the metrics, admission and
 * graceful shutdown each need it; with a listener each, a streamed answer (whose pipeline adds
 * its own) passed Node's bound of ten and printed a "possible memory leak" warning per page.
 * Returns a function that drops the work if it has not run yet.
 */
export function onResponseClose(response: ServerResponse, work: () => void): () => void {
  let pending = waiting.get(response);
  if (!pending) {
    const list: (() => void)[] = [];
    pending = list;
    waiting.set(response, list);
    response.once('close', () => {
      for (const run of list.splice(0)) run();
    });
  }
  const list = pending;
  list.push(work);
  return () => {
    const at = list.indexOf(work);
    if (at >= 0) list.splice(at, 1);
  };
}

const waiting = new WeakMap<ServerResponse, (() => void)[]>();

/**
 * The status a closed response is logged and counted under: its own once its answer began, or
 * 499 when the client went away before (nginx's "client closed request"): until then the
 * response only holds Koa's default 404, which no one was answered.
 */
const CLIENT_CLOSED_REQUEST = 499;
export const closedStatus = (response: ServerResponse): number => (response.headersSent ? response.statusCode : CLIENT_CLOSED_REQUEST);
