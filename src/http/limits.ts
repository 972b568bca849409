import type { ServerOptions as HttpServerOptions } from 'node:http';

/**
 * What one client may ask of the server, each with a safe default (docs/configuration.md#limits).
 * Node's HTTP server enforces the header size and the timeouts; the app enforces the rest.
 */
export interface Limits {
  /** Requests in progress at once (a streaming page counts until sent); past it, 503. */
  maxConcurrent: number;
  /** Largest request body in bytes; past it, 413. */
  bodyLimit: number;
  /** Largest body of a push of table records (`POST /v1/tables/{key}/records/bulk`), read as a stream; past it, 413. */
  pushBodyLimit: number;
  /** Longest request target (path and query) in bytes; past it, 414. */
  maxUrlLength: number;
  /** Largest request line plus headers in bytes; past it, 431 (also for a longer URL). */
  maxHeaderSize: number;
  /** Time allowed to receive the request line and headers; past it, 408 and the connection closes. */
  headersTimeoutMs: number;
  /** Time allowed to receive the whole request, body included; past it, 408 and the connection closes. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open between requests. */
  keepAliveTimeoutMs: number;
  /**
   * How long a connection may move no byte either way while a request is served (a reader that
   * stops reading a page); then it is closed and its page memory and concurrency slot freed.
   */
  idleTimeoutMs: number;
  /** After SIGTERM, how long requests in flight may take before their connections are cut. */
  shutdownTimeoutMs: number;
}

export const DEFAULT_LIMITS: Readonly<Limits> = {
  maxConcurrent: 64,
  bodyLimit: 1024 * 1024,
  pushBodyLimit: 64 * 1024 * 1024,
  maxUrlLength: 8 * 1024,
  maxHeaderSize: 16 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 30_000,
  shutdownTimeoutMs: 10_000,
};

/** The given limits over the defaults; fails on a combination Node's server refuses. */
export function resolveLimits(given: Partial<Limits>): Limits {
  const defined = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
  const limits = { ...DEFAULT_LIMITS, ...defined } as Limits;
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new RangeError('the headers timeout must not exceed the request timeout');
  }
  return limits;
}

/**
 * Node's server settings for the limits. Node looks for expired header and request timers only
 * every `connectionsCheckingInterval` (30 s by default, which would let a slow-header client
 * stay far past its timeout): here a quarter of the shorter timeout, at most one second.
 */
export function httpServerOptions(limits: Limits): HttpServerOptions {
  const shorterTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return {
    maxHeaderSize: limits.maxHeaderSize,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(shorterTimeout / 4))),
    // A request without Host is answered by the app (a problem), not by Node's bare 400.
    requireHostHeader: false,
  };
}
