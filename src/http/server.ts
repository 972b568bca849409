import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openStore } from '../store/openStore.js';
import { createApi } from './api.js';
import { createApp } from './app.js';
import { answerClientErrors } from './clientErrors.js';
import { loadDocsAssets } from './docsAssets.js';
import { loadDocument } from './document.js';
import type { FaultSpec } from './faultSpec.js';
import { readJsonBody } from './jsonBody.js';
import { httpServerOptions, resolveLimits, type Limits } from './limits.js';
import { createLogger, type Logger } from './logging.js';
import type { KeyRateLimiter } from './rateLimit.js';
import { createMetrics, type MetricsSharing } from './metrics.js';

export interface ServerOptions extends Partial<Limits> {
  /** The database, as `--db` names it (see `openStore`); it must exist (`StoreMissing` otherwise). */
  db: string;
  port: number;
  host: string;
  /** Base of every `next` URL; without it, the request's Host header is used. */
  publicUrl?: string;
  /** Honour X-Forwarded-Proto / X-Forwarded-Host when building `next`. */
  trustProxy?: boolean;
  /** Origins whose browser applications may call the API (`*`: any); none or absent: CORS off. */
  corsOrigins?: readonly string[];
  /** How long a write waits for another process's write lock before a 503 (default 5000 ms). */
  busyTimeoutMs?: number;
  /** PostgreSQL: connections at most (`--db-pool`, default 10). */
  dbPool?: number;
  /** `--metrics`: serve `GET /metrics`; the function says how figures are shared (default: each server its own). */
  metrics?: true | MetricsSharing;
  /** Rate limits per key (`--rate-limit`); none: no limit. */
  rateLimiter?: KeyRateLimiter;
  /** Where structured logs go (default: pino at `info` on standard output). */
  logger?: Logger;
  /** Faults injected into the API's answers, for testing clients (`--faults`); absent: none. */
  faults?: FaultSpec;
  /** For tests of a writer that dies: the first writer thread exits inside its first transaction. */
  writerExitsInFirstTransaction?: boolean;
}

export interface RunningServer {
  /** `http://host:port` it listens on. */
  url: string;
  /**
   * Stops accepting, lets in-flight requests finish (cut after the shutdown timeout), then
   * closes the store (for SQLite: the WAL folded into the database file).
   */
  close(): Promise<void>;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const limits = resolveLimits(options);
  const logger = options.logger ?? createLogger('info');
  const store = await openStore(options.db, {
    role: 'server',
    mustExist: true,
    busyTimeoutMs: options.busyTimeoutMs,
    poolSize: options.dbPool,
    log: logger,
    writerExitsInFirstTransaction: options.writerExitsInFirstTransaction,
  });
  try {
    const document = loadDocument();
    const metrics = options.metrics ? createMetrics(store) : undefined;
    const scrape = metrics && (options.metrics === true ? metrics.scrape : options.metrics!(metrics));
    const publicBase = { publicUrl: options.publicUrl?.replace(/\/+$/, ''), trustProxy: options.trustProxy ?? false };
    const api = await createApi({
      definition: document.definition,
      deps: {
        store,
        publicBase,
        faults: options.faults,
        document,
        docs: loadDocsAssets(),
        ...(scrape && { metrics: { scrape } }),
      },
      authenticate: (key) => store.authenticate(key),
      readBody: (ctx) => readJsonBody(ctx, limits.bodyLimit),
      rateLimiter: options.rateLimiter,
    });
    const app = createApp(api, { limits, logger, publicBase, corsOrigins: options.corsOrigins ?? [], faults: options.faults, metrics });
    const server = createServer(httpServerOptions(limits), app.callback());
    server.setTimeout(limits.idleTimeoutMs, (socket) => socket.destroy());
    answerClientErrors(server, logger, limits.maxHeaderSize);
    server.listen(options.port, options.host);
    await once(server, 'listening');
    const { address, port } = server.address() as AddressInfo;
    const host = address.includes(':') ? `[${address}]` : address;
    const closeStore = async () => {
      await store.close();
      logger.flush();
    };
    return { url: `http://${host}:${port}`, close: () => shutDown(server, limits.shutdownTimeoutMs, closeStore) };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/**
 * Stops accepting, lets in-flight responses finish (keep-alive connections are closed as soon
 * as they fall idle), cuts whatever is still open after `timeoutMs`, then closes the store.
 */
async function shutDown(server: Server, timeoutMs: number, closeStore: () => Promise<void>): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const idleSweep = setInterval(() => server.closeIdleConnections(), 50);
  const deadline = setTimeout(() => server.closeAllConnections(), timeoutMs);
  await closed;
  // The server is closed once its last socket is; the close events of the responses on it (and
  // their log lines) come in the turns after: let them run before the store goes.
  await new Promise((resolve) => setImmediate(resolve));
  clearInterval(idleSweep);
  clearTimeout(deadline);
  await closeStore();
}
