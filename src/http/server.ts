import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startCheckpointer } from '../store/checkpointer.js';
import { openDatabase, type Db } from '../store/db.js';
import { keyAuthenticator } from '../store/keys.js';
import { pagedReads } from '../store/pagedReads.js';
import { createApi } from './api.js';
import { createApp } from './app.js';
import { answerClientErrors } from './clientErrors.js';
import { loadDocument } from './document.js';
import { readJsonBody } from './jsonBody.js';
import { httpServerOptions, resolveLimits, type Limits } from './limits.js';
import { createLogger, type Logger } from './logging.js';

export interface ServerOptions extends Partial<Limits> {
  dbPath: string;
  port: number;
  host: string;
  /** Base of every `next` URL; without it, the request's Host header is used. */
  publicUrl?: string;
  /** Honour X-Forwarded-Proto / X-Forwarded-Host when building `next`. */
  trustProxy?: boolean;
  /** How long a request waits for another process's write lock before a 503 (default 5000 ms). */
  busyTimeoutMs?: number;
  /** Where structured logs go (default: pino at `info` on standard output). */
  logger?: Logger;
}

export interface RunningServer {
  /** `http://host:port` it listens on. */
  url: string;
  /**
   * Stops accepting, lets in-flight requests finish (cut after the shutdown timeout),
   * checkpoints the WAL into the database file and closes it.
   */
  close(): Promise<void>;
}

export { DEFAULT_LIMITS } from './limits.js';

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const limits = resolveLimits(options);
  const logger = options.logger ?? createLogger('info');
  const db = openDatabase(options.dbPath, { busyTimeoutMs: options.busyTimeoutMs });
  const document = loadDocument();
  const api = await createApi({
    definition: document.definition,
    deps: {
      db,
      reads: pagedReads(db),
      publicBase: { publicUrl: options.publicUrl?.replace(/\/+$/, ''), trustProxy: options.trustProxy ?? false },
      documentJson: document.json,
    },
    authenticate: keyAuthenticator(db),
    readBody: (ctx) => readJsonBody(ctx, limits.bodyLimit),
  });
  const app = createApp(api, limits, logger);
  const server = createServer(httpServerOptions(limits), app.callback());
  server.setTimeout(limits.idleTimeoutMs, (socket) => socket.destroy());
  answerClientErrors(server, logger, limits.maxHeaderSize);
  server.listen(options.port, options.host);
  await once(server, 'listening');
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  const checkpointer = startCheckpointer(db, (error) => logger.error({ err: error }, 'checkpoint worker failed'));
  const closeDatabase = async () => {
    await checkpointer.stop();
    checkpointWal(db, logger);
    db.close();
    logger.flush();
  };
  return { url: `http://${host}:${port}`, close: () => shutDown(server, limits.shutdownTimeoutMs, closeDatabase) };
}

/**
 * Stops accepting, lets in-flight responses finish (keep-alive connections are closed as soon
 * as they fall idle), cuts whatever is still open after `timeoutMs`, then closes the database.
 */
async function shutDown(server: Server, timeoutMs: number, closeDatabase: () => Promise<void>): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const idleSweep = setInterval(() => server.closeIdleConnections(), 50);
  const deadline = setTimeout(() => server.closeAllConnections(), timeoutMs);
  await closed;
  clearInterval(idleSweep);
  clearTimeout(deadline);
  await closeDatabase();
}

/**
 * Copies the WAL into the database file and truncates it, so that the file alone holds every
 * commit once the server is gone. Another process's reader or writer may keep it from
 * finishing: that is no fault (the WAL stays valid and the next checkpoint finishes the work).
 */
function checkpointWal(db: Db, logger: Logger): void {
  try {
    const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    if (result?.busy) logger.warn('the WAL could not be truncated: another connection is using it');
  } catch (error) {
    logger.warn({ err: error }, 'the WAL could not be checkpointed');
  }
}
