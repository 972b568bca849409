import { availableParallelism } from 'node:os';
import { Command, InvalidArgumentError } from 'commander';
import type { FaultSpec } from '../http/faultSpec.js';
import { DEFAULT_LIMITS } from '../http/limits.js';
import type { RatePolicy } from '../http/rateLimit.js';
import { createLogger, LOG_LEVELS, endLog, type LogLevel } from '../http/logging.js';
import type { RunningServer, ServerOptions } from '../http/server.js';
import { DEFAULT_POOL_SIZE, openStore } from '../store/openStore.js';
import { DEFAULT_READ_ROUTING } from '../store/readRouting.js';
import type { Store } from '../store/store.js';
import { integerIn, parseCorsOrigin, parsePort, parsePublicUrl, parseReplica, parseText } from './arguments.js';
import { commandFailureOf, DB_HELP, requireDatabase } from './database.js';
import { FAULTS_HELP, parseFaultsOption } from './faultsOption.js';
import { CommandFailure } from './errors.js';
import { isServeWorker, reportListening, runServeWorkers, type PrimaryService } from './serveWorkers.js';
import { parseRateLimit, rateLimiterFor, rateLimitService } from './serveRateLimit.js';
import { metricsOption, metricsService } from './serveMetrics.js';

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

/** `--workers`: a count, or `auto` for one per core. */
function parseWorkers(text: string): number {
  return text === 'auto' ? availableParallelism() : integerIn(1, 256)(text);
}

const bytes = (max: number) => integerIn(1, max);
const milliseconds = integerIn(1, 24 * 3600 * 1000);

function parseLogLevel(text: string): LogLevel {
  if (!(LOG_LEVELS as readonly string[]).includes(text)) throw new InvalidArgumentError(`must be one of ${LOG_LEVELS.join(', ')}.`);
  return text as LogLevel;
}

export function serveCommand(): Command {
  const d = DEFAULT_LIMITS;
  return new Command('serve')
    .description('serve the HTTP API over a database file')
    .requiredOption('--db <path>', `${DB_HELP} (must exist: seed or import create one)`, parseText)
    .option('--port <n>', 'TCP port; 0 picks a free one', parsePort, 8080)
    .option('--host <host>', 'interface to listen on', parseText, '127.0.0.1')
    .option(
      '--public-url <url>',
      'absolute http(s) URL that "next" links are built on (default: from the Host header)',
      parsePublicUrl,
    )
    .option('--trust-proxy', 'build "next" links from X-Forwarded-Proto and X-Forwarded-Host')
    .option('--faults <spec>', FAULTS_HELP, parseFaultsOption)
    .option('--cors-origin <origin>', 'let browser applications of this origin call the API (repeatable; * for any); default: CORS off', parseCorsOrigin)
    .option('--max-concurrent <n>', 'requests served at once; more are answered 503', integerIn(1, 1_000_000), d.maxConcurrent)
    .option('--body-limit <bytes>', 'largest request body; larger are answered 413', bytes(1 << 30), d.bodyLimit)
    .option('--push-body-limit <bytes>', 'largest body of a push of table records (read as a stream); larger are answered 413', bytes(1 << 32), d.pushBodyLimit)
    .option('--max-url-length <bytes>', 'longest request target (path and query); longer are answered 414', bytes(1 << 20), d.maxUrlLength)
    .option('--max-header-size <bytes>', 'largest request line plus headers; larger are answered 431', bytes(1 << 20), d.maxHeaderSize)
    .option('--headers-timeout <ms>', 'time to receive the request headers; then 408', milliseconds, d.headersTimeoutMs)
    .option('--request-timeout <ms>', 'time to receive the whole request; then 408', milliseconds, d.requestTimeoutMs)
    .option('--keep-alive-timeout <ms>', 'how long an idle keep-alive connection stays open', milliseconds, d.keepAliveTimeoutMs)
    .option('--idle-timeout <ms>', 'a connection moving no byte for this long mid-request is closed', milliseconds, d.idleTimeoutMs)
    .option('--shutdown-timeout <ms>', 'after SIGTERM, how long requests in flight may take', milliseconds, d.shutdownTimeoutMs)
    .option('--workers <n>', 'server processes on the one port (auto: one per core); limits apply to each', parseWorkers, 1)
    .option('--db-pool <n>', 'PostgreSQL: connections to the database per server process (and to each replica)', integerIn(1, 1000), DEFAULT_POOL_SIZE)
    .option('--db-replica <url>', 'PostgreSQL: a streaming replica of --db that serves reads (repeatable; see docs/scaling.md)', parseReplica)
    .option(
      '--replica-wait <ms>',
      'how long a read with a consistency token waits for a replica to replay it before the primary serves it',
      integerIn(0, 60_000),
      DEFAULT_READ_ROUTING.waitMs,
    )
    .option('--replica-max-lag <ms>', 'a replica whose data is older than this leaves the rotation until it catches up', integerIn(1, 3_600_000), DEFAULT_READ_ROUTING.maxLagMs)
    .option(
      '--rate-limit <n[/burst]>',
      'requests a second per API key, and how many at once (default: n); more are answered 429; default: no limit',
      parseRateLimit,
    )
    .option('--metrics', 'serve GET /metrics (Prometheus text format, no key); default: off (404)')
    .option('--log-level <level>', `least level logged (${LOG_LEVELS.join(', ')})`, parseLogLevel, 'info' as LogLevel)
    .addHelpText(
      'after',
      '\nThe first line of stdout is "listening on <url>"; JSON log lines (pino) follow it on stdout.\n' +
        'SIGTERM or SIGINT stops accepting, finishes the requests in flight and exits 0; a second\n' +
        'signal ends the process at once. With --workers N, every worker is a whole server over the\n' +
        'same database (its own limits, --max-concurrent included; --rate-limit holds for the\n' +
        'workers together); a worker that dies is replaced.',
    )
    .action(async (options: CliServeOptions, command: Command) => {
      if (options.headersTimeout > options.requestTimeout) {
        command.error('error: --headers-timeout must not exceed --request-timeout');
      }
      requireDatabase(options.db);
      const serverOptions = toServerOptions(options);
      if (options.workers > 1 && !isServeWorker()) {
        const services: PrimaryService[] = [...rateLimitService(options.rateLimit), ...metricsService(options.metrics)];
        process.exitCode = await runServeWorkers(options.workers, serverOptions.logger, services);
        return;
      }
      await serve(options, serverOptions);
    });
}

interface CliServeOptions {
  db: string;
  port: number;
  host: string;
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
}

type ServeOptions = Omit<ServerOptions, 'store'> & Required<Pick<ServerOptions, 'logger'>>;

function toServerOptions(options: CliServeOptions): ServeOptions {
  return {
    port: options.port,
    host: options.host,
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
    logger: createLogger(options.logLevel),
  };
}

/**
 * Opens the database, starts the server, prints where it listens (the first line of stdout; log
 * lines follow), and on the first stop signal closes the server, then the database.
 */
async function serve(cli: CliServeOptions, options: ServeOptions): Promise<void> {
  let store: Store;
  try {
    store = await openStore(cli.db, {
      role: 'server',
      mustExist: true,
      poolSize: cli.dbPool,
      replicas: cli.dbReplica ?? [],
      routing: { waitMs: cli.replicaWait, maxLagMs: cli.replicaMaxLag },
      log: options.logger,
    });
  } catch (error) {
    throw commandFailureOf(error);
  }
  let server: RunningServer;
  try {
    // Loaded by the command that serves: every other command starts without the HTTP stack.
    const { startServer } = await import('../http/server.js');
    server = await startServer({ ...options, store });
  } catch (error) {
    await store.close();
    throw new CommandFailure(`cannot serve ${cli.db} on ${options.host}:${options.port}: ${(error as Error).message}`);
  }
  if (isServeWorker()) reportListening(server.url);
  else process.stdout.write(`listening on ${server.url}\n`);
  const signal = await stopRequested();
  options.logger.info({ signal }, 'stopping: finishing the requests in flight');
  await server.close();
  await store.close();
  options.logger.info('stopped');
  await endLog(options.logger);
  process.exit(0);
}
