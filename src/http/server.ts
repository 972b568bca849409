import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AdminStore, RequestStore, ServerStore } from '../store/store.js';
import { createAdminApi } from './adminApi.js';
import type { SandboxLimits } from './handlers/admin/adminDeps.js';
import { createApi } from './api.js';
import { admission } from './admission.js';
import { answeredAheadOfAdmission, createApp, markHealthPort } from './app.js';
import { answerClientErrors } from './clientErrors.js';
import { gracefulShutdown, handlersAtWork } from './shutdown.js';
import { docsAssets } from './docsAssets.js';
import { adminDocument, contractDocument } from './document.js';
import type { FaultSpec } from './faultSpec.js';
import { readJsonBody } from './jsonBody.js';
import { readPushBody } from './pushBody.js';
import { startImportRunner } from '../store/imports/importRunner.js';
import { startSandboxSweeper, type SandboxSweeper } from '../store/admin/sandboxSweeper.js';
import { startDeliveryWorker } from '../delivery/deliveryWorker.js';
import { DELIVERY_DEFAULTS, type DeliveryOptions } from '../delivery/deliveryOptions.js';
import { SANDBOX_DEFAULTS, type SandboxOptions } from './sandboxOptions.js';
import { closeIdleConnections } from './idleConnections.js';
import { httpServerOptions, resolveLimits, type Limits } from './limits.js';
import { createLogger, type Logger } from './logging.js';
import type { KeyRateLimiter } from './rateLimit.js';
import { createMetrics, type MetricsSharing } from './metrics.js';

export interface ServerOptions extends Partial<Limits> {
  /** The data served (see `openStore`); the caller closes it after the server. */
  store: RequestStore & ServerStore;
  port: number;
  host: string;
  /**
   * `--health-port`: `/healthz` and `/metrics` also answered on a listening socket of their own
   * (on `host`; 0 picks a free port), where nothing else is served. Under overload the API's port
   * may hold hundreds of connections waiting to be accepted, and Node accepts one per listening
   * socket and turn of its event loop: a probe on a new connection to the API's port waits
   * behind them all, one on this port is accepted at the next turn.
   */
  healthPort?: number;
  /** Base of every `next` URL; without it, the request's Host header is used. */
  publicUrl?: string;
  /** Honour X-Forwarded-Proto / X-Forwarded-Host when building `next`. */
  trustProxy?: boolean;
  /** Origins whose browser applications may call the API (`*`: any); none or absent: CORS off. */
  corsOrigins?: readonly string[];
  /** `--metrics`: serve `GET /metrics`; the function says how figures are shared (default: each server its own). */
  metrics?: true | MetricsSharing;
  /** Rate limits per key (`--rate-limit`); none: no limit. */
  rateLimiter?: KeyRateLimiter;
  /** Where structured logs go (default: pino at `info` on standard output). */
  logger?: Logger;
  /** Faults injected into the API's answers, for testing clients (`--faults`); absent: none. */
  faults?: FaultSpec;
  /** The administration API under `/admin/v1/` (docs/administration.md), behind this token; absent: off. */
  admin?: { token: string; store: AdminStore; sandboxLimits?: SandboxLimits };
  /** With the administration API: the sandboxes' time to live (docs/administration.md#time-to-live). */
  sandboxes?: Partial<SandboxOptions>;
  /** The delivery of webhook calls (docs/administration.md#delivery) by this server; absent: none. */
  webhooks?: Partial<DeliveryOptions>;
}


export interface RunningServer {
  /** `http://host:port` it listens on. */
  url: string;
  /** `http://host:port` of the health port, when there is one. */
  healthUrl?: string;
  /**
   * Stops accepting and lets in-flight requests finish, their handlers included (even those whose
   * client went away), all cut after the shutdown timeout; the store stays open for the caller to close.
   */
  close(): Promise<void>;
  /** Requests admitted and not yet answered (what `--max-concurrent` bounds). */
  requestsInProgress: () => number;
  /** With the administration API: a sweep of expired sandboxes now (see `SandboxSweeper.sweep`). */
  sweep?: () => Promise<number>;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const { store } = options;
  const limits = resolveLimits(options);
  const logger = options.logger ?? createLogger('info');
  const document = contractDocument();
  const metrics = options.metrics ? createMetrics(store) : undefined;
  const scrape = metrics && (options.metrics === true ? () => metrics.scrape() : options.metrics!(metrics));
  const imports = startImportRunner(store, logger);
  const publicBase = { publicUrl: options.publicUrl?.replace(/\/+$/, ''), trustProxy: options.trustProxy ?? false };
  const api = await createApi({
    definition: document.definition,
    deps: {
      store,
      publicBase,
      faults: options.faults,
      document,
      docs: docsAssets(),
      ...(scrape && { metrics: { scrape } }),
      importsPushed: () => imports.poke(),
    },
    authenticate: (key, read) => store.authenticate(key, read),
    readBody: (ctx) => readJsonBody(ctx, limits.bodyLimit),
    readPushBody: (ctx) => readPushBody(ctx, limits.pushBodyLimit),
    rateLimiter: options.rateLimiter,
  });
  const sandboxes = { ...SANDBOX_DEFAULTS, ...options.sandboxes };
  const adminApi = options.admin && (await createAdminApi({
    definition: adminDocument().definition,
    ...options.admin,
    sandboxTtlSeconds: sandboxes.ttlSeconds,
    webhookAllowPrivate: options.webhooks?.allowPrivate === true,
    callsWritten: () => void delivery?.deliver(),
    publicBase,
    readBody: (ctx) => readJsonBody(ctx, limits.bodyLimit),
    rateLimiter: options.rateLimiter,
  }));
  const sweeper = options.admin && sweeperOver(options.admin.store, store, logger, sandboxes.sweepEveryMs);
  const delivery = options.webhooks && startDeliveryWorker(store, logger, { ...DELIVERY_DEFAULTS, ...options.webhooks, ...(metrics && { onAttempt: metrics.countWebhookAttempt }) });
  const admitted = admission(limits.maxConcurrent, { exempt: answeredAheadOfAdmission, count: store.requestsInProgress });
  const app = createApp(api, { limits, logger, publicBase, corsOrigins: options.corsOrigins ?? [], faults: options.faults, metrics, admitted, healthPort: options.healthPort !== undefined, ...(adminApi && { adminApi }) });
  const handle = app.callback();
  const atWork = handlersAtWork();
  const listen = async (port: number, healthOnly: boolean) => {
    const server = createServer(httpServerOptions(limits), (request, response) => {
      if (healthOnly) markHealthPort(request);
      atWork.track(handle(request, response));
    });
    const shutDown = gracefulShutdown(server);
    closeIdleConnections(server, limits.idleTimeoutMs, logger);
    answerClientErrors(server, logger, limits.maxHeaderSize);
    server.listen(port, options.host);
    await once(server, 'listening');
    const { address, port: bound } = server.address() as AddressInfo;
    return { url: `http://${address.includes(':') ? `[${address}]` : address}:${bound}`, shutDown };
  };
  const served = await listen(options.port, false);
  let health: Awaited<ReturnType<typeof listen>> | undefined;
  try {
    health = options.healthPort === undefined ? undefined : await listen(options.healthPort, true);
  } catch (error) {
    // The health port is taken (or not allowed): no half-started server stays behind.
    await served.shutDown(0);
    await imports.stop();
    await sweeper?.stop();
    await delivery?.stop();
    throw error;
  }
  const close = async () => {
    const deadline = Date.now() + limits.shutdownTimeoutMs;
    await Promise.all([served.shutDown(limits.shutdownTimeoutMs), health?.shutDown(limits.shutdownTimeoutMs)]);
    // No connection is left, so no request can come; the handlers still at work finish in time.
    await atWork.settled(deadline - Date.now());
    await imports.stop();
    await sweeper?.stop();
    await delivery?.stop();
  };
  return { url: served.url, ...(health && { healthUrl: health.url }), close, requestsInProgress: admitted.inProgress, ...(sweeper && { sweep: () => sweeper.sweep() }) };
}

/** The sandbox sweeper of a server with the administration API: its deletions through the admin store, its lease through the server's. */
function sweeperOver(admin: AdminStore, server: ServerStore, logger: Logger, everyMs: number): SandboxSweeper {
  const store = {
    expiredSandboxes: admin.expiredSandboxes.bind(admin),
    deleteTenant: admin.deleteTenant.bind(admin),
    takeLease: server.takeLease.bind(server),
    releaseLease: server.releaseLease.bind(server),
    requestsInProgress: server.requestsInProgress,
  };
  return startSandboxSweeper(store, logger, { everyMs });
}

