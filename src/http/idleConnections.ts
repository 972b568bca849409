import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { responseInFlight } from './clientErrors.js';

interface DebugLog {
  debug(details: object, message: string): void;
}

/**
 * Closes a connection idle for `idleTimeoutMs`: a client that stopped sending its request or
 * reading its answer. A connection is idle too while the server works on a request it has whole
 * and has not begun to answer (a write waiting for its lock, a slow copy on a loaded machine):
 * that one stays open, so that the answer reaches its client; the work's own deadlines (the
 * busy timeout's `503`) bound how long.
 */
export function closeIdleConnections(server: Server, idleTimeoutMs: number, logger: DebugLog): void {
  server.setTimeout(idleTimeoutMs, (socket: Duplex & { setTimeout(ms: number): unknown }) => {
    const response = responseInFlight(socket);
    if (response !== undefined && response.req.complete && !response.headersSent) {
      logger.debug({ idleTimeoutMs }, 'connection idle while its request is worked on: kept open for the answer');
      socket.setTimeout(idleTimeoutMs);
      return;
    }
    socket.destroy();
  });
}
