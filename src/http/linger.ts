import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';

/**
 * A lingering close, as nginx does it: an answer sent before its request's body was read (a
 * `413`, or a `401` to a PUT with a body) must still reach a client that writes its whole body
 * before it reads. Closing at once would make the kernel answer the unread bytes with a reset,
 * and the client would see EPIPE or a reset instead of the answer. So the rest of the body is
 * read and thrown away (node's server does that for a connection it keeps), within bounds: past
 * {@link LINGER_BYTES} more bytes or {@link LINGER_MS}, the connection is cut.
 */
export const LINGER_BYTES = 64 * 1024 * 1024;
const LINGER_MS = 10_000;

export function lingerAfterEarlyAnswers(): Middleware {
  return async (ctx, next) => {
    const { req, res } = ctx;
    res.once('finish', () => {
      if (!req.complete) linger(req);
    });
    await next();
  };
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
