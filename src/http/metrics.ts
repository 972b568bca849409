import type { Middleware } from 'koa';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { StoreBusy, StoreFull } from '../store/vocabulary/storeErrors.js';
import type { ReplicaState } from '../store/vocabulary/readShapes.js';
import type { RequestStore, ServerStore } from '../store/store.js';
import type { AttemptOutcome } from '../delivery/deliveryOptions.js';
import { isReadMethod } from './readMethods.js';
import { closedStatus, onResponseClose } from './responseClose.js';

/**
 * `serve --metrics`: `GET /metrics` in the Prometheus text format (prom-client), one registry
 * per server. What is counted:
 *
 * - `compdata_http_requests_total{operation,status}`: every answer, by operationId (`none` for
 *   a request that matched no operation: 404, 405, the `/` redirect, a refused preflight) and
 *   status;
 * - `compdata_http_request_duration_seconds{operation}`: from arrival to the last byte sent;
 * - `compdata_records_served_total{operation}`: records in the pages answered;
 * - `compdata_write_lock_wait_seconds`: a histogram of the time each write that got the write
 *   lock waited for it (writes queued before it in this server, other processes' writers);
 * - `compdata_write_lock_timeouts_total`: writes answered 503 because another writer (an
 *   import, another server) held the write lock past the busy timeout;
 * - `compdata_writes_refused_disk_full_total`: writes answered 507 because the database's disk
 *   was full;
 * - `compdata_database_size_bytes`: read at each scrape;
 * - with read replicas (`--db-replica`), by `server` (`primary`, `replica-1`, …), read at each
 *   scrape: `compdata_read_server_reads_total` (reads begun on it: the share of reads of each
 *   server), `compdata_read_server_in_rotation` (1 or 0), `compdata_read_server_removals_total`
 *   (times it left the rotation), `compdata_read_server_failures_total` (reads it failed, each
 *   served by another server) and `compdata_replica_lag_seconds` (how old its data was at the
 *   last check; absent while it does not answer);
 * - the webhook calls (docs/administration.md#delivery): `compdata_webhook_attempts_total{outcome}`,
 *   the attempts this server made, by outcome (`delivered`; `retried`: failed, tried again;
 *   `failed`: failed, and the call with it), and, read at each scrape across tenants,
 *   `compdata_webhook_calls_pending` (the outbox's depth) and
 *   `compdata_webhook_oldest_pending_seconds` (since when the oldest pending call waits: written,
 *   or last sent again by hand; 0 when none is pending);
 * - prom-client's process and Node runtime metrics (`process_resident_memory_bytes`,
 *   `process_open_fds`, event-loop lag, heap, GC).
 */
export interface Metrics {
  /** Counts every request (place it inside the problem handler, to see what is thrown). */
  middleware: Middleware;
  /** This server's own figures. */
  scrape(): Promise<Scrape>;
  /** The registry, for `--workers` (the primary asks each worker for it). */
  registry: Registry;
  /** Counts an attempt of a webhook call made by this server's delivery worker. */
  countWebhookAttempt: (outcome: AttemptOutcome) => void;
}

/** What a scrape answers: the text, and its content type (text/plain; version=0.0.4). */
export interface Scrape {
  text: string;
  contentType: string;
}

/**
 * How a server shares its figures: by default a scrape answers its own; a worker of `--workers`
 * hands its registry to the primary and answers what the primary gathered from all workers.
 */
export type MetricsSharing = (metrics: Metrics) => () => Promise<Scrape>;

/** Request state the metrics read: set by the router (operationId) and the paged-read path. */
export interface MeteredState {
  operationId?: string;
  recordsServed?: number;
  /** A write's wait for the write lock (`BulkOutcome.lockWaitMs`). */
  lockWaitMs?: number;
}

const LOCK_WAIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createMetrics(store: Pick<ServerStore, 'databaseBytes' | 'webhookQueue'> & Pick<RequestStore, 'readServers'>): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'compdata_http_requests_total',
    help: 'HTTP requests answered, by operation and status',
    labelNames: ['operation', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'compdata_http_request_duration_seconds',
    help: 'Time from a request\'s arrival to the last byte of its answer, by operation',
    labelNames: ['operation'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const records = new Counter({
    name: 'compdata_records_served_total',
    help: 'Records in the pages answered, by operation',
    labelNames: ['operation'] as const,
    registers: [registry],
  });
  const lockWaits = new Histogram({
    name: 'compdata_write_lock_wait_seconds',
    help: 'Time a write waited for the write lock, from its arrival at the store until its transaction held the lock (writes behind it in this server included)',
    buckets: LOCK_WAIT_BUCKETS,
    registers: [registry],
  });
  const lockTimeouts = new Counter({
    name: 'compdata_write_lock_timeouts_total',
    help: 'Writes answered 503 because another writer held the write lock past the busy timeout',
    registers: [registry],
  });
  const diskFull = new Counter({
    name: 'compdata_writes_refused_disk_full_total',
    help: 'Writes answered 507 because the disk that holds the database was full',
    registers: [registry],
  });
  new Gauge({
    name: 'compdata_database_size_bytes',
    help: 'Bytes the database takes (SQLite: the file and its WAL; PostgreSQL: the whole database)',
    registers: [registry],
    // Every worker of --workers sees the same database: the aggregate is one of them, not a sum.
    aggregator: 'max',
    // A database that cannot be reached (a full disk refusing a new connection, a server down)
    // leaves the size read last: the scrape still answers, with the figures that say why.
    async collect() {
      try {
        this.set(await store.databaseBytes());
      } catch {
        return;
      }
    },
  });

  readServerMetrics(registry, store);
  const webhookAttempts = webhookMetrics(registry, store);

  const middleware: Middleware = async (ctx, next) => {
    const stopTimer = duration.startTimer();
    onResponseClose(ctx.res, () => {
      const { operationId = 'none', recordsServed, lockWaitMs } = ctx.state as MeteredState;
      stopTimer({ operation: operationId });
      requests.inc({ operation: operationId, status: String(closedStatus(ctx.res)) });
      if (recordsServed) records.inc({ operation: operationId }, recordsServed);
      if (lockWaitMs !== undefined) lockWaits.observe(lockWaitMs / 1000);
    });
    try {
      await next();
    } catch (error) {
      if (error instanceof StoreBusy) lockTimeouts.inc();
      // A read stopped by a full disk is a 503 (app.ts), not a write refused.
      if (error instanceof StoreFull && !isReadMethod(ctx.method)) diskFull.inc();
      throw error;
    }
  };

  return {
    middleware,
    registry,
    countWebhookAttempt: (outcome) => webhookAttempts.inc({ outcome }),
    scrape: async () => ({ text: await registry.metrics(), contentType: registry.contentType }),
  };
}

/** The read servers' figures (see `createMetrics`), each a gauge set from the store's state at each scrape. */
function readServerMetrics(registry: Registry, store: Pick<RequestStore, 'readServers'>): void {
  // With --workers, each worker routes its own reads: counts add up, a replica is in rotation
  // when it is in every worker's, and the lag is the worst seen.
  const figures: [name: string, help: string, aggregator: 'sum' | 'min' | 'max', value: (server: ReplicaState) => number | undefined][] = [
    ['compdata_read_server_reads_total', 'Reads begun on each read server (the primary and each replica)', 'sum', (server) => server.reads],
    ['compdata_read_server_in_rotation', 'Whether reads go to the read server (1) or not (0)', 'min', (server) => (server.inRotation ? 1 : 0)],
    ['compdata_read_server_removals_total', 'Times the replica left the rotation (lagging past the bound, or not answering)', 'sum', (server) => server.removals],
    ['compdata_read_server_failures_total', 'Reads that failed on the replica and were served by another server', 'sum', (server) => server.failures],
    ['compdata_replica_lag_seconds', 'How old the replica\'s data was at the last check', 'max', (server) => (server.lagMs === undefined ? undefined : server.lagMs / 1000)],
  ];
  for (const [name, help, aggregator, value] of figures) {
    new Gauge({
      name,
      help,
      aggregator,
      labelNames: ['server'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const server of store.readServers()) {
          const figure = value(server);
          if (figure !== undefined) this.set({ server: server.name }, figure);
        }
      },
    });
  }
}

/** The webhook calls' figures (see `createMetrics`): the attempts' counter, which the delivery worker moves, and the outbox's gauges. */
function webhookMetrics(registry: Registry, store: Pick<ServerStore, 'webhookQueue'>): Counter<'outcome'> {
  // Read once per scrape for both gauges; a database that cannot be reached leaves the figures read last.
  let queue: Promise<void> | undefined;
  const readQueue = () =>
    (queue ??= store
      .webhookQueue()
      .then(({ pending: depth, oldestSince }) => {
        pending.set(depth);
        oldest.set(oldestSince === null ? 0 : Math.max(0, (Date.now() - Date.parse(oldestSince)) / 1000));
      })
      .catch(() => undefined)
      .finally(() => (queue = undefined)));
  // Every worker of --workers sees the same outbox: the aggregate is one of them, not a sum.
  const pending = new Gauge({ name: 'compdata_webhook_calls_pending', help: 'Webhook calls waiting for an attempt, across tenants', aggregator: 'max', registers: [registry], collect: readQueue });
  const oldest = new Gauge({
    name: 'compdata_webhook_oldest_pending_seconds',
    help: 'How long the oldest pending webhook call has waited (since it was written, or last sent again by hand); 0 when none waits',
    aggregator: 'max',
    registers: [registry],
    collect: readQueue,
  });
  return new Counter({
    name: 'compdata_webhook_attempts_total',
    help: 'Attempts of webhook calls made by this server, by outcome: delivered; retried (failed, tried again); failed (failed, and the call with it)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
}
