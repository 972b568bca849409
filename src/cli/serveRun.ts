import type { Command } from 'commander';
import type { FaultSpec } from '../http/faultSpec.js';
import { createLogger, endLog } from '../http/logging.js';
import type { LogLevel } from '../http/logLevels.js';
import type { RatePolicy } from '../http/rateLimit.js';
import type { RunningServer, ServerOptions } from '../http/server.js';
import { openStore } from '../store/openStore.js';
import { DELIVERY_DEFAULTS } from '../delivery/deliveryOptions.js';
import type { Store } from '../store/store.js';
import type { StoreLog } from '../store/vocabulary/storeLog.js';
import { readAdminToken } from './adminTokenOption.js';
import { commandFailureOf, requireDatabase } from './database.js';
import { CommandFailure } from './errors.js';
import { isServeWorker, reportListening, runServeWorkers, type PrimaryService } from './serveWorkers.js';
import { rateLimiterFor, rateLimitService } from './serveRateLimit.js';
import { metricsOption, metricsService } from './serveMetrics.js';

/** What `compdata serve` does once its command line is read (serve.ts reads it). */
export async function runServe(options: CliServeOptions, command: Command): Promise<void> {
  if (options.headersTimeout > options.requestTimeout) {
    command.error('error: --headers-timeout must not exceed --request-timeout');
  }
  requireDatabase(options.db);
  // Read before workers start, so that a bad token stops the command with one line.
  const adminToken = readAdminToken(options.adminTokenFile);
  const serverOptions = toServerOptions(options);
  if (options.workers > 1 && !isServeWorker()) {
    const services: PrimaryService[] = [...rateLimitService(options.rateLimit), ...metricsService(options.metrics)];
    process.exitCode = await runServeWorkers(options.workers, serverOptions.logger, services);
    return;
  }
  await serve(options, serverOptions, adminToken);
}

/**
 * Resolves on the first SIGTERM or SIGINT (a second one then ends the process at once). A worker
 * of `--workers` stops when its primary says so (or is gone), and ignores the terminal's SIGINT,
 * which its primary also receives and passes on.
 */
function stopRequested(): Promise<string> {
  if (isServeWorker()) {
    process.on('SIGINT', () => {});
    return new Promise((resolve) => {
      process.once('SIGTERM', () => resolve('SIGTERM'));
      process.once('disconnect', () => resolve('primary gone'));
    });
  }
  return new Promise((resolve) => {
    const once = (signal: NodeJS.Signals): void => {
      process.off('SIGTERM', once);
      process.off('SIGINT', once);
      resolve(signal);
    };
    process.on('SIGTERM', once);
    process.on('SIGINT', once);
  });
}

export interface CliServeOptions {
  db: string;
  port: number;
  host: string;
  healthPort?: number;
  publicUrl?: string;
  trustProxy?: boolean;
  corsOrigin?: string[];
  faults?: FaultSpec;
  maxConcurrent: number;
  bodyLimit: number;
  pushBodyLimit: number;
  maxUrlLength: number;
  maxHeaderSize: number;
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  idleTimeout: number;
  shutdownTimeout: number;
  logLevel: LogLevel;
  workers: number;
  dbPool: number;
  dbReplica?: string[];
  replicaWait: number;
  replicaMaxLag: number;
  rateLimit?: RatePolicy;
  metrics?: boolean;
  adminTokenFile?: string;
  sandboxTtl: number;
  sweepEvery: number;
  maxSandboxes: number;
  maxSandboxRecords: number;
  webhookTimeout: number;
  webhookAttempts: number;
  webhookRetryScale: number;
  webhookPoll: number;
  webhookLeaseMargin: number;
  webhookAllowPrivate?: boolean;
}

type ServeOptions = Omit<ServerOptions, 'store'> & Required<Pick<ServerOptions, 'logger'>>;

function toServerOptions(options: CliServeOptions): ServeOptions {
  return {
    port: options.port,
    host: options.host,
    ...(options.healthPort !== undefined && { healthPort: options.healthPort }),
    ...(options.publicUrl !== undefined && { publicUrl: options.publicUrl }),
    trustProxy: options.trustProxy === true,
    corsOrigins: options.corsOrigin ?? [],
    ...(options.faults !== undefined && { faults: options.faults }),
    maxConcurrent: options.maxConcurrent,
    bodyLimit: options.bodyLimit,
    pushBodyLimit: options.pushBodyLimit,
    maxUrlLength: options.maxUrlLength,
    maxHeaderSize: options.maxHeaderSize,
    headersTimeoutMs: options.headersTimeout,
    requestTimeoutMs: options.requestTimeout,
    keepAliveTimeoutMs: options.keepAliveTimeout,
    idleTimeoutMs: options.idleTimeout,
    shutdownTimeoutMs: options.shutdownTimeout,
    ...(options.rateLimit && { rateLimiter: rateLimiterFor(options.rateLimit) }),
    ...(options.metrics && { metrics: metricsOption(options.metrics) }),
    sandboxes: { ttlSeconds: options.sandboxTtl, sweepEveryMs: options.sweepEvery },
    webhooks: {
      timeoutMs: options.webhookTimeout,
      allowPrivate: options.webhookAllowPrivate === true,
      retries: { ...DELIVERY_DEFAULTS.retries, attempts: options.webhookAttempts, scale: options.webhookRetryScale },
      pollMs: options.webhookPoll,
      leaseMarginMs: options.webhookLeaseMargin,
    },
    logger: createLogger(options.logLevel),
  };
}

/**
 * Opens the database, starts the server, prints where it listens (the first line of stdout; log
 * lines follow), and on the first stop signal closes the server, then the database.
 */
async function serve(cli: CliServeOptions, options: ServeOptions, adminToken: string | undefined): Promise<void> {
  let store: Store;
  const storeLog = heldUntilListening(options.logger);
  try {
    store = await openStore(cli.db, {
      role: 'server',
      mustExist: true,
      poolSize: cli.dbPool,
      replicas: cli.dbReplica ?? [],
      routing: { waitMs: cli.replicaWait, maxLagMs: cli.replicaMaxLag },
      log: storeLog.log,
    });
  } catch (error) {
    storeLog.release();
    throw commandFailureOf(error);
  }
  let server: RunningServer;
  try {
    // Loaded by the command that serves: every other command starts without the HTTP stack.
    const { startServer } = await import('../http/server.js');
    server = await startServer({ ...options, store, ...(adminToken !== undefined && { admin: { token: adminToken, store, sandboxLimits: { maxSandboxes: cli.maxSandboxes, maxRecords: cli.maxSandboxRecords } } }) });
  } catch (error) {
    storeLog.release();
    await store.close();
    throw new CommandFailure(`cannot serve ${cli.db} on ${options.host}:${options.port}: ${(error as Error).message}`);
  }
  if (isServeWorker()) reportListening(server.url);
  else process.stdout.write(`listening on ${server.url}\n`);
  storeLog.release();
  if (server.healthUrl) options.logger.info({ url: server.healthUrl }, 'health port: /healthz and /metrics');
  const signal = await stopRequested();
  options.logger.info({ signal }, 'stopping: finishing the requests in flight');
  await server.close();
  await store.close();
  options.logger.info('stopped');
  await endLog(options.logger);
  process.exit(0);
}

/**
 * The store's log, its lines held while the store opens (such as the one that says a connection
 * pooler was seen) and written once `listening on <url>` is: that stays the first line of stdout.
 */
function heldUntilListening(logger: StoreLog): { log: StoreLog; release(): void } {
  let held: (() => void)[] | undefined = [];
  const write = (line: () => void) => (held ? held.push(line) : line());
  return {
    log: { warn: (details, message) => write(() => logger.warn(details, message)), error: (details, message) => write(() => logger.error(details, message)) },
    release() {
      const lines = held ?? [];
      held = undefined;
      for (const line of lines) line();
    },
  };
}
