import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';

/**
 * A lingering close, as nginx does it: an answer sent before its request's body was read (a
 * `413`, or a `401` or `403` to a write with a body) must still reach a client that writes its
 * whole body before it reads. Closing on unread bytes makes the kernel answer them with a reset,
 * and the client sees EPIPE or a reset instead of the answer. Node closes the connection right
 * after the answer when the client asked `Connection: close` (Node's client without an agent
 * does), whatever is left unread. So the rest of a body whose declared length is within
 * `drainBound` is read and thrown away *before* the answer is sent ({@link drainBeforeAnswer}).
 * A longer or chunked body is answered at once and the rest thrown away after the answer (node's
 * server does that for a connection it keeps), within bounds: past {@link LINGER_BYTES} more
 * bytes or {@link LINGER_MS}, the connection is cut.
 */
export const LINGER_BYTES = 64 * 1024 * 1024;
const LINGER_MS = 10_000;

/** `drainBound`: the largest declared body read to its end before an early answer (the largest body limit plus {@link LINGER_BYTES}). */
export function lingerAfterEarlyAnswers(drainBound: number): Middleware {
  return async (ctx, next) => {
    const { req, res } = ctx;
    res.once('finish', () => {
      if (!req.complete) linger(req);
    });
    await next();
    if (!req.complete && !res.headersSent && ctx.respond !== false && declaredLength(req) <= drainBound) await drainBeforeAnswer(req);
  };
}

/** The body's declared length; infinite for a chunked body (or none declared), whose end cannot be known in advance. */
function declaredLength(req: IncomingMessage): number {
  const length = req.headers['content-length'];
  return length === undefined || req.headers['transfer-encoding'] !== undefined ? Infinity : Number(length);
}

/**
 * Reads the rest of the body and throws it away; resolves at its end, when the client goes, or
 * after {@link LINGER_MS} (then the answer goes out and {@link linger} cuts the connection).
 */
async function drainBeforeAnswer(req: IncomingMessage): Promise<void> {
  if (req.destroyed || req.socket.destroyed) return; // the client went: nothing more will come
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      req.off('end', done).off('close', done).off('error', done);
      resolve();
    };
    const timer = setTimeout(done, LINGER_MS);
    req.on('end', done).on('close', done).on('error', done);
    req.on('data', () => undefined);
    req.resume(); // a reader that stopped (raw-body on a 413) may have paused it
  });
}

function linger(req: IncomingMessage): void {
  const socket = req.socket;
  const bytesAtAnswer = socket.bytesRead;
  const answeredAt = Date.now();
  const watch = setInterval(() => {
    if (req.complete || socket.destroyed) return clearInterval(watch);
    if (socket.bytesRead - bytesAtAnswer > LINGER_BYTES || Date.now() - answeredAt > LINGER_MS) {
      clearInterval(watch);
      socket.destroy();
    }
  }, 50);
  watch.unref();
  req.resume(); // node's server drains a request it answered early; this makes sure it flows
}
