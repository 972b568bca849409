import { availableParallelism } from 'node:os';
import { Command, InvalidArgumentError } from 'commander';
import { DEFAULT_SANDBOX_LIMITS } from '../http/handlers/admin/adminDeps.js';
import { DEFAULT_LIMITS } from '../http/limits.js';
import { SANDBOX_DEFAULTS } from '../http/sandboxOptions.js';
import { DEFAULT_LEASE_MARGIN_MS, DELIVERY_DEFAULTS } from '../delivery/deliveryOptions.js';
import { MAX_TTL_SECONDS } from '../domain/sandboxExpiry.js';
import { LOG_LEVELS, type LogLevel } from '../http/logLevels.js';
import { parseRatePolicy, type RatePolicy } from '../http/rateLimit.js';
import { DEFAULT_POOL_SIZE, DEFAULT_READ_ROUTING } from '../store/openStore.js';
import { integerIn, parseCorsOrigin, parsePort, parsePublicUrl, parseReplica, parseText } from './arguments.js';
import { ADMIN_TOKEN_FILE_HELP } from './adminTokenOption.js';
import { DB_HELP } from './database.js';
import { FAULTS_HELP, parseFaultsOption } from './faultsOption.js';
import type { CliServeOptions } from './serveRun.js';

/** `--workers`: a count, or `auto` for one per core. */
function parseWorkers(text: string): number {
  return text === 'auto' ? availableParallelism() : integerIn(1, 256)(text);
}

const bytes = (max: number) => integerIn(1, max);
const milliseconds = integerIn(1, 24 * 3600 * 1000);

/** `--webhook-retry-scale`: a factor above 0, at most 1. */
function parseScale(text: string): number {
  const scale = Number(text);
  if (!/^[0-9.]+$/.test(text) || !(scale > 0 && scale <= 1)) throw new InvalidArgumentError('must be a number above 0 and at most 1.');
  return scale;
}

/** `--rate-limit N[/BURST]`. */
function parseRateLimit(text: string): RatePolicy {
  const policy = parseRatePolicy(text);
  if (!policy) throw new InvalidArgumentError('must be N or N/BURST: whole numbers from 1 to 9999999 (requests a second, requests at once).');
  return policy;
}

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
    .option('--health-port <n>', 'also answer /healthz and /metrics (only) on this TCP port, accepted apart from the API\'s connections; 0 picks a free one', parsePort)
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
    .option('--push-body-limit <bytes>', 'largest body of a push of table records (read as a stream); larger are answered 413', bytes(2 ** 32), d.pushBodyLimit)
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
    .option('--admin-token-file <path>', ADMIN_TOKEN_FILE_HELP, parseText)
    .option(
      '--sandbox-ttl <seconds>',
      'with the administration API: seconds a sandbox lives when its request sets no ttl_seconds; then the server removes it',
      integerIn(1, MAX_TTL_SECONDS),
      SANDBOX_DEFAULTS.ttlSeconds,
    )
    .option('--sweep-every <ms>', 'with the administration API: how often expired sandboxes are looked for (one server of the database at a time removes them)', milliseconds, SANDBOX_DEFAULTS.sweepEveryMs)
    .option('--max-sandboxes <n>', 'administration API: sandboxes that may exist at once; more are answered 409', integerIn(1, 1_000_000), DEFAULT_SANDBOX_LIMITS.maxSandboxes)
    .option('--max-sandbox-records <n>', 'administration API: most records of a template copied into a sandbox; more are answered 422', integerIn(0, 1_000_000_000), DEFAULT_SANDBOX_LIMITS.maxRecords)
    .option('--webhook-timeout <ms>', 'how long a webhook call waits for its answer, whole; then it failed and is tried again', milliseconds, DELIVERY_DEFAULTS.timeoutMs)
    .option('--webhook-attempts <n>', 'attempts of a webhook call in all before it has failed for good', integerIn(1, 100), DELIVERY_DEFAULTS.retries.attempts)
    .option('--webhook-retry-scale <factor>', 'multiplies every wait of the retry schedule (for tests: 0.001 makes seconds milliseconds)', parseScale, DELIVERY_DEFAULTS.retries.scale)
    .option('--webhook-poll <ms>', 'how often the outbox of webhook calls is looked at when nothing is due sooner', milliseconds, DELIVERY_DEFAULTS.pollMs)
    .option(
      '--webhook-lease-margin <ms>',
      "how long a server's claim of a webhook call outlasts the attempt's timeout: a call of a server that died is sent again once both have passed (for tests: shorter than the endpoints' fault waits, two servers may attempt one call at once)",
      milliseconds,
      DEFAULT_LEASE_MARGIN_MS,
    )
    .option('--webhook-allow-private', 'webhook endpoints may be on loopback, private and link-local addresses (localhost, 10.x, 169.254.x, fc00::/7...), and are called there: for tests and demos on one machine; default: refused')
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
      // Loaded by the command that serves: every other command starts without the server's modules.
      const { runServe } = await import('./serveRun.js');
      await runServe(options, command);
    });
}
