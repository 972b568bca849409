import type { Server } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { onResponseClose } from './responseClose.js';

/**
 * Graceful shutdown of an HTTP server: stop accepting, let every request already received be
 * answered in full, close each connection as soon as it carries none, and cut whatever is still
 * open after the timeout.
 *
 * A connection counts as busy from a request's arrival until its response has been handed to the
 * operating system in full (its 'close'). Node's own `server.close()` and
 * `closeIdleConnections()` count a response as done once the handler has ended it, though its
 * last bytes may still wait in the socket for a slow reader: they would cut that response off at
 * once, not at the timeout. So the listener is stopped with `net.Server`'s close, and idle
 * connections are closed here.
 */
export interface Shutdown {
  /** Resolves when the last connection has closed (at most `timeoutMs` after the call). */
  (timeoutMs: number): Promise<void>;
}

export function gracefulShutdown(server: Server): Shutdown {
  const busy = new Map<Socket, number>();
  let stopping = false;
  const settle = (socket: Socket) => {
    if (stopping && busy.get(socket) === 0) socket.destroy();
  };
  server.on('connection', (socket: Socket) => {
    busy.set(socket, 0);
    socket.once('close', () => busy.delete(socket));
  });
  server.on('request', (request, response) => {
    const socket = request.socket;
    if (!busy.has(socket)) return;
    busy.set(socket, busy.get(socket)! + 1);
    onResponseClose(response, () => {
      if (!busy.has(socket)) return;
      busy.set(socket, busy.get(socket)! - 1);
      settle(socket);
    });
  });
  return async (timeoutMs) => {
    stopping = true;
    const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
    for (const socket of busy.keys()) settle(socket);
    const deadline = setTimeout(() => {
      for (const socket of busy.keys()) socket.destroy();
    }, timeoutMs);
    await closed;
    // No connection is left: Node's own close now only stops its timer of request timeouts.
    server.close();
    // The server is closed once its last socket is; the close events of the responses on it (and
    // their log lines) come in the turns after: let them run before the caller closes the store.
    await new Promise((resolve) => setImmediate(resolve));
    clearTimeout(deadline);
  };
}

/**
 * The app's handlers still at work. A handler goes on after its client went away (or its
 * connection was cut), and may still ask the store: the server's close waits for them, so that
 * its caller closes the store only once no request uses it (else a read on PostgreSQL failed
 * with "Cannot use a pool after calling end on the pool", logged as unexpected).
 */
export interface HandlersAtWork {
  /** Counts `work` (one request's handling, as Koa's callback returns it) until it settles. */
  track(work: Promise<void>): void;
  /** Resolves once every handler counted has settled, or after `timeoutMs`. */
  settled(timeoutMs: number): Promise<void>;
}

export function handlersAtWork(): HandlersAtWork {
  const working = new Set<Promise<void>>();
  return {
    track(work) {
      working.add(work);
      const done = () => void working.delete(work);
      work.then(done, done);
    },
    async settled(timeoutMs) {
      if (working.size === 0) return;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, timeoutMs))));
      await Promise.race([Promise.allSettled([...working]), deadline]);
      clearTimeout(timer);
    },
  };
}
