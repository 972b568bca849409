import type { IncomingMessage } from 'node:http';
import Koa from 'koa';
import { StoreFull, StoreUnavailable } from '../store/vocabulary/storeErrors.js';
import type { Admission } from './admission.js';
import { isAdminPath } from './adminApi.js';
import type { Api } from './api.js';
import { compression } from './compression.js';
import { crossOrigin } from './cors.js';
import type { FaultSpec } from './faultSpec.js';
import { injectFaults } from './faults.js';
import type { Limits } from './limits.js';
import { requestIdOf, requestLog, type Logger } from './logging.js';
import { LINGER_BYTES, lingerAfterEarlyAnswers } from './linger.js';
import type { Metrics } from './metrics.js';
import { HttpProblem, problems, respondWithProblem } from './problems.js';
import type { PublicBaseConfig } from './publicBase.js';
import { redirectRootToDocs } from './rootRedirect.js';
import { securityHeaders } from './securityHeaders.js';
import { isReadMethod } from './readMethods.js';

export interface AppSettings {
  limits: Pick<Limits, 'maxUrlLength' | 'bodyLimit' | 'pushBodyLimit'>;
  logger: Logger;
  publicBase: PublicBaseConfig;
  /** `--faults`: faults injected into the answers of the API, for testing clients; none: off. */
  faults?: FaultSpec;
  /** Origins allowed to call from a browser (`*`: any); none: CORS off. */
  corsOrigins: readonly string[];
  /** `--metrics`: every request counted. */
  metrics?: Pick<Metrics, 'middleware'>;
  /** The concurrency limit, which the server also asks how many requests are in progress. */
  admitted: Admission;
  /** `--health-port`: requests marked by {@link markHealthPort} are the probes' only. */
  healthPort?: boolean;
  /** The administration API, served under `/admin` (adminApi.ts); absent: those paths are the public API's 404s. */
  adminApi?: Pick<Api, 'handleRequest'>;
}

/**
 * The request flow, in order: `X-Content-Type-Options: nosniff` on every answer -> request id
 * and log line -> a lingering close for an answer given before its body was read (the rest
 * of a declared body within the bound read before the answer goes out, linger.ts) -> faults injected on demand (`--faults`, off by default) -> compression of the answer (gzip, br)
 * -> problem rendering for anything thrown -> metrics (with --metrics) -> CORS (preflight 204, headers on every answer)
 * -> request target length (414) -> on the health port, anything but the probes 404 -> `GET /`
 * redirected to `/docs` -> admission (one request at
 * a time per connection, 503 past the concurrency limit; `/healthz` and `/metrics` never
 * refused) -> openapi-backend (route 404/405 ->
 * key 401 -> body 413/415 -> schema 400 -> operation handler).
 */
export function createApp(api: Api, { limits, logger, publicBase, corsOrigins, faults, metrics, admitted, healthPort, adminApi }: AppSettings): Koa {
  const app = new Koa();

  app.use(securityHeaders());
  app.use(requestLog(logger));
  app.use(lingerAfterEarlyAnswers(Math.max(limits.bodyLimit, limits.pushBodyLimit) + LINGER_BYTES));
  if (faults) app.use(injectFaults(faults, logger));
  app.use(compression());

  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const problem = asProblem(error, ctx.method);
      if (error instanceof StoreFull) {
        logger.error({ reqId: requestIdOf(ctx) }, 'a write was refused: the disk that holds the database is full');
      } else if (!(error instanceof HttpProblem) && !(error instanceof StoreUnavailable)) {
        logger.error({ reqId: requestIdOf(ctx), err: error }, 'unexpected error');
      }
      respondWithProblem(ctx, problem);
    }
  });

  if (metrics) app.use(metrics.middleware);

  const cors = crossOrigin(corsOrigins);
  if (cors) app.use(cors);

  app.use(async (ctx, next) => {
    if (ctx.url.length > limits.maxUrlLength) throw problems.uriTooLong(limits.maxUrlLength);
    await next();
  });

  if (healthPort) {
    app.use(async (ctx, next) => {
      // The health port (server.ts) serves the probes and nothing else.
      if (onHealthPort.has(ctx.req) && !answeredAheadOfAdmission(ctx)) throw problems.notFound(`No resource at ${ctx.path} on the health port.`);
      await next();
    });
  }
  app.use(redirectRootToDocs(publicBase));
  app.use(admitted.middleware);

  app.use(async (ctx) => {
    // A path that is not valid percent-encoding names no resource (and would throw in routing).
    if (!decodable(ctx.path)) throw problems.notFound(`No resource at ${ctx.path}.`);
    const method = ctx.method === 'HEAD' ? 'get' : ctx.method.toLowerCase();
    const headers = ctx.headers as Record<string, string | string[]>;
    const request = { method, path: ctx.path, query: ctx.querystring, headers, body: undefined };
    const served = adminApi && isAdminPath(ctx.path) ? adminApi : api;
    await served.handleRequest(request, ctx as Parameters<Api['handleRequest']>[1]);
  });

  // What goes wrong after the response has begun (a streamed page), once per response.
  app.on('error', (error: unknown, ctx?: Koa.Context) => {
    if (!isClientGone(error)) logger.error({ reqId: ctx && requestIdOf(ctx), err: error }, 'unexpected error');
  });
  return app;
}

/** Requests that arrived on the health port (`--health-port`). */
const onHealthPort = new WeakSet<IncomingMessage>();
export const markHealthPort = (request: IncomingMessage): void => void onHealthPort.add(request);

/** `GET /healthz` and `GET /metrics` (and their HEADs): cheap, and never waiting behind pages (admission.ts). */
const AHEAD_OF_ADMISSION = new Set(['/healthz', '/metrics']);
/** `/healthz` and `/metrics`: never refused for load (see admission.ts). */
export const answeredAheadOfAdmission = (ctx: Koa.Context): boolean => isReadMethod(ctx.method) && AHEAD_OF_ADMISSION.has(ctx.path);

function decodable(path: string): boolean {
  if (!path.includes('%')) return true;
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** A client that hung up or broke the protocol mid-request is not a fault of the server. */
function isClientGone(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  const clientCodes = ['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE'];
  return typeof code === 'string' && (code.startsWith('HPE_') || clientCodes.includes(code));
}

/** When a read stopped by a full disk is worth trying again. */
const READ_RETRY_SECONDS = 5;

/**
 * What the client is told: a problem thrown on purpose as it is; a store that cannot do the work
 * now (a database locked by another process past the busy timeout, a writer that stopped) is a
 * 503 to retry, not a fault; a write refused for a full disk is a 507 (rolled back whole); a
 * read that a full disk stopped (on PostgreSQL, a new connection writes a file before it serves)
 * is a 503 to retry, as the read operations document; anything else is a 500 that says nothing
 * of the inside.
 */
function asProblem(error: unknown, method: string): HttpProblem {
  if (error instanceof HttpProblem) return error;
  if (error instanceof StoreUnavailable) return problems.serviceUnavailable(error.retryAfterSeconds, error.message);
  if (error instanceof StoreFull && isReadMethod(method)) {
    return problems.serviceUnavailable(READ_RETRY_SECONDS, 'The disk that holds the database is full: the read could not be served.');
  }
  if (error instanceof StoreFull) return problems.insufficientStorage();
  return problems.internal();
}
