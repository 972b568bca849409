import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Context, Middleware } from 'koa';
import { countRequests, requestsNow, type RequestsInProgress } from '../store/vocabulary/requestsInProgress.js';
import { problems } from './problems.js';
import { onResponseClose } from './responseClose.js';

/**
 * Admission: at most `maxConcurrent` requests in progress at once (a streamed page counts
 * until it is sent or cut off); past it, 503 with Retry-After.
 *
 * One request at a time per connection: a pipelined request waits until the one before it on
 * its connection has been answered. Node runs the handler of every pipelined request at once
 * and queues their responses; a client that pipelined many page reads and never read would hold
 * a slot and a page in memory for each. Here it holds one of each, until the idle timeout cuts
 * it off. (Were they all let through, a queued response of a connection that closes would
 * never emit 'close' on some Node lines, so its slot would never come back.) While a request
 * waits its turn, `ctx.state.waitingForTurn` says so: a connection that closes meanwhile cuts
 * it off before it has begun (its log line says `queued`).
 *
 * Requests that `exempt` names (the liveness probe, the metrics scrape) wait for their turn on
 * their connection like any other, but never for a slot and are never refused: a probe that
 * failed under load would make an orchestrator restart a server that is only busy.
 *
 * The requests in progress are counted in `count`, the store's (`Store.requestsInProgress`),
 * whose background work gives way to them.
 */
export interface Admission {
  readonly middleware: Middleware;
  /** Requests admitted and not yet answered in full (nor cut off). */
  readonly inProgress: () => number;
}

export function admission(
  maxConcurrent: number,
  { exempt, count }: { exempt: (ctx: Context) => boolean; count: RequestsInProgress },
): Admission {
  const lastAnswerOnConnection = new WeakMap<Socket, Promise<void>>();
  const middleware: Middleware = async (ctx, next) => {
    const socket = ctx.req.socket;
    const turn = lastAnswerOnConnection.get(socket);
    let answered!: () => void;
    lastAnswerOnConnection.set(socket, new Promise<void>((resolve) => (answered = resolve)));
    if (turn) {
      ctx.state.waitingForTurn = true;
      await turn;
      ctx.state.waitingForTurn = false;
    }
    // The connection is gone (cut off while this request waited its turn): nothing to answer.
    if (socket.destroyed) return answered();
    const counted = !exempt(ctx);
    const admitted = !counted || requestsNow(count) < maxConcurrent;
    if (counted && admitted) countRequests(count, +1);
    whenEnded(ctx.res, socket, () => {
      if (counted && admitted) countRequests(count, -1);
      answered();
    });
    if (!admitted) throw problems.serviceUnavailable(1);
    await next();
  };
  return { middleware, inProgress: () => requestsNow(count) };
}

/**
 * Calls `ended` once, when the response has been sent in full or its connection has closed.
 * A connection cut mid-request emits the response's `close` from within the socket's: removing
 * the socket's listener then does not stop the emit already under way, hence the flag.
 */
function whenEnded(response: ServerResponse, socket: Socket, ended: () => void): void {
  let done = false;
  const once = () => {
    dropResponseClose();
    socket.off('close', once);
    if (done) return;
    done = true;
    ended();
  };
  const dropResponseClose = onResponseClose(response, once);
  socket.once('close', once);
}
