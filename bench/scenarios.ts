/**
 * The named scenarios of the suite and the autocannon requests each sends. A scenario is a kind
 * of request (`ScenarioKind`) at a number of connections; the depth sweep adds pages at offsets
 * between the first and the last, for the depth chart.
 */
import type autocannon from 'autocannon';
import type { BenchConfig } from './config.js';
import type { FilteredPaths } from './filteredPaths.js';

export type ScenarioKind =
  | 'reporting-first'
  | 'reporting-first-gzip'
  | 'reporting-first-br'
  | 'reporting-deep-offset'
  | 'reporting-deep-next'
  | 'reporting-walk'
  | 'table-first'
  | 'reporting-small-random'
  | 'reporting-count'
  | 'reporting-unauthorized'
  | 'bulk-put'
  | 'bulk-put-tenants'
  | 'reporting-depth'
  | 'reporting-user-first'
  | 'reporting-user-deep-next'
  | 'v2-first'
  | 'v2-deep'
  | 'reporting-first-small'
  | 'reporting-deep-small'
  | 'v2-first-small'
  | 'v2-deep-small'
  | 'table-first-small'
  | 'v2-records-first-small';

/** The in-process reads a served read scenario is compared with (see ceiling.ts). */
export type CeilingKind = 'first' | 'deep' | 'walk' | 'table' | 'small-random';

export interface Scenario {
  kind: ScenarioKind;
  /** What a reader of the table sees: `reporting, first page (offset 0)`. */
  title: string;
  connections: number;
  /** Which server process answers: the read store's or the bulk store's. */
  server: 'read' | 'bulk';
  /** Records (bulk: items) one request carries, for records/s; 0 for counts. */
  recordsPerRequest: number;
  ceiling?: CeilingKind;
  /** The offset of the page, for the depth chart. */
  depth?: number;
  /** autocannon options besides url, connections, duration and headers; fresh state per call. */
  requests(target: { tenantKeys?: readonly string[] }): Partial<autocannon.Options>;
}

/** What the scenarios need to know of the stores. */
export interface ScenarioInputs {
  config: BenchConfig;
  /** Path and query of the deep page as `next` of the page before it gives it. */
  deepNextPath: string;
  bulkBodies: string[];
  /** Bodies for the bulk store's smaller tenants (bulkStore.ts `TENANTS`), the same for each. */
  tenantBulkBodies?: string[];
  /** The requests of the filtered scenarios (filteredPaths.ts); without them there are none. */
  filtered?: FilteredPaths;
}

export const READ_PATH = '/v1/reporting';
/** A key of the right shape whose id no store holds: looked up and refused (401). */
const UNKNOWN_KEY = `cdk_000000000000_${'A'.repeat(43)}`;
export const TABLE_PATH = '/v1/tables/deals/records';
/** The statements of v2 (their structure's id is derived, the same in every store). */
const V2_PATH = '/v2/reporting/2fa94265-8b29-8997-887d-7958c0ab8234/statements';

/** Every scenario kind at every connection count, then the depth sweep (at 8 connections or the nearest). */
export function allScenarios(inputs: ScenarioInputs): Scenario[] {
  const { config } = inputs;
  const kinds = scenarioKinds(inputs);
  const matrix = kinds.flatMap((make) => config.connections.map((connections) => make(connections)));
  return [...matrix, ...depthSweep(config)];
}

type ScenarioMaker = (connections: number) => Scenario;

function scenarioKinds({ config, deepNextPath, bulkBodies, tenantBulkBodies = [], filtered }: ScenarioInputs): ScenarioMaker[] {
  const { limit, smallLimit, records } = config;
  const deep = records - limit;
  return [
    (connections) => ({ ...readPage(connections, 0, limit), kind: 'reporting-first', title: 'reporting, first page (offset 0)', ceiling: 'first' }),
    // BENCH_ENCODINGS=gzip,br: the same page compressed (records/s, and bytes on the wire in MB/s).
    ...config.encodings.map(
      (encoding): ScenarioMaker =>
        (connections) => ({
          ...readPage(connections, 0, limit),
          kind: `reporting-first-${encoding}`,
          title: `reporting, first page (offset 0), Accept-Encoding: ${encoding}`,
          ceiling: 'first',
          requests: () => ({ requests: [{ method: 'GET', path: `${READ_PATH}?limit=${limit}&offset=0`, headers: { 'Accept-Encoding': encoding } }] }),
        }),
    ),
    (connections) => ({ ...readPage(connections, deep, limit), kind: 'reporting-deep-offset', title: `reporting, deep page by raw offset (${deep})`, ceiling: 'deep' }),
    (connections) => ({
      ...readPage(connections, deep, limit),
      kind: 'reporting-deep-next',
      title: `reporting, deep page by next (${deep})`,
      ceiling: 'deep',
      requests: () => fixedPath(deepNextPath),
    }),
    // The same pages read through v2 (GET /v2/reporting/{table_id}/statements): the deep one by
    // the start_id of the record before it (the seed's ids number records from 1, stl_0000001).
    (connections) => ({ ...readPage(connections, 0, limit), kind: 'v2-first', title: 'v2 statements, first page', requests: () => fixedPath(`${V2_PATH}?limit=${limit}`) }),
    (connections) => ({
      ...readPage(connections, deep, limit),
      kind: 'v2-deep',
      title: `v2 statements, deep page by start_id (${deep})`,
      requests: () => fixedPath(`${V2_PATH}?limit=${limit}&start_id=stl_${String(deep).padStart(7, '0')}`),
    }),
    // The same four at limit=100 (v1's deep page by offset: a v1 page of that size costs the same by next).
    ...v2Pairs(config.smallLimit, records - config.smallLimit),
    (connections) => ({
      kind: 'reporting-walk',
      title: 'reporting, walk of all pages by next (a walker per connection)',
      connections,
      server: 'read',
      recordsPerRequest: limit,
      ceiling: 'walk',
      requests: () => walkFollowingNext(`${READ_PATH}?limit=${limit}&offset=0`, connections),
    }),
    (connections) => ({
      kind: 'table-first',
      title: `table records (deals), first page`,
      connections,
      server: 'read',
      recordsPerRequest: limit,
      ceiling: 'table',
      requests: () => fixedPath(`${TABLE_PATH}?limit=${limit}&offset=0`),
    }),
    (connections) => ({
      kind: 'reporting-small-random',
      title: `reporting, limit=${smallLimit} at random offsets`,
      connections,
      server: 'read',
      recordsPerRequest: smallLimit,
      ceiling: 'small-random',
      requests: () => randomSmallPages(records, smallLimit),
    }),
    (connections) => ({
      kind: 'reporting-count',
      title: 'reporting, limit=0 (count)',
      connections,
      server: 'read',
      recordsPerRequest: 0,
      requests: () => fixedPath(`${READ_PATH}?limit=0`),
    }),
    (connections) => ({
      kind: 'reporting-unauthorized',
      title: 'reporting, a key of the right shape that no tenant has (401)',
      connections,
      server: 'read',
      recordsPerRequest: 0,
      requests: () => ({ requests: [{ method: 'GET', path: `${READ_PATH}?limit=${smallLimit}`, headers: { 'X-API-Key': UNKNOWN_KEY } }] }),
    }),
    ...(filtered ? filteredKinds(filtered, limit) : []),
    (connections) => ({
      kind: 'bulk-put',
      title: `bulk PUT of ${config.bulkItems} group/manager items`,
      connections,
      server: 'bulk',
      recordsPerRequest: config.bulkItems,
      requests: () => rotatingBodies(bulkBodies),
    }),
    (connections) => ({
      kind: 'bulk-put-tenants',
      title: `bulk PUT of ${config.bulkItems} items, each request to the next of 8 tenants`,
      connections,
      server: 'bulk',
      recordsPerRequest: config.bulkItems,
      requests: ({ tenantKeys = [] }) => rotatingBodies(tenantBulkBodies, tenantKeys),
    }),
  ];
}

/** One user's records (`user=`): the first page, and a deep page of the walk by `next` (cursor included). */
function filteredKinds(filtered: FilteredPaths, limit: number): ScenarioMaker[] {
  const page = (connections: number) => ({ connections, server: 'read' as const, recordsPerRequest: limit });
  return [
    (connections) => ({
      ...page(connections),
      kind: 'reporting-user-first',
      title: `reporting, first page of one user's records (user=)`,
      requests: () => fixedPath(filtered.firstPath),
    }),
    (connections) => ({
      ...page(connections),
      kind: 'reporting-user-deep-next',
      title: `reporting, one user's records, page at ${filtered.deepOffset} by next`,
      requests: () => fixedPath(filtered.deepNextPath),
    }),
  ];
}

/** The records of v2's `deals` table (their structure's id is derived, the same in every store). */
const V2_DEALS_PATH = '/v2/reporting/34e95ea1-8cbc-866c-8332-8f647ce1e7b6/records';

/** v1's first and deep page of `limit` records beside v2's of the same records, for the v2/v1 cost target. */
function v2Pairs(limit: number, deep: number): ScenarioMaker[] {
  const v2Deep = `${V2_PATH}?limit=${limit}&start_id=stl_${String(deep).padStart(7, '0')}`;
  return [
    (connections) => ({ ...readPage(connections, 0, limit), kind: 'reporting-first-small', title: `reporting, first page of ${limit}` }),
    (connections) => ({ ...readPage(connections, deep, limit), kind: 'reporting-deep-small', title: `reporting, deep page of ${limit} by offset (${deep})` }),
    (connections) => ({ ...readPage(connections, 0, limit), kind: 'v2-first-small', title: `v2 statements, first page of ${limit}`, requests: () => fixedPath(`${V2_PATH}?limit=${limit}`) }),
    (connections) => ({
      ...readPage(connections, deep, limit),
      kind: 'v2-deep-small',
      title: `v2 statements, deep page of ${limit} by start_id (${deep})`,
      requests: () => fixedPath(v2Deep),
    }),
    (connections) => ({ ...readPage(connections, 0, limit), kind: 'table-first-small', title: `table records (deals), first page of ${limit}`, requests: () => fixedPath(`${TABLE_PATH}?limit=${limit}`) }),
    (connections) => ({ ...readPage(connections, 0, limit), kind: 'v2-records-first-small', title: `v2 records (deals), first page of ${limit}`, requests: () => fixedPath(`${V2_DEALS_PATH}?limit=${limit}`) }),
  ];
}

function readPage(connections: number, offset: number, limit: number): Omit<Scenario, 'kind' | 'title'> {
  return {
    connections,
    server: 'read',
    recordsPerRequest: limit,
    depth: offset,
    requests: () => fixedPath(`${READ_PATH}?limit=${limit}&offset=${offset}`),
  };
}

/** Pages of `limit` at offsets evenly spaced strictly between the first and the last page. */
function depthSweep(config: BenchConfig): Scenario[] {
  const connections = config.connections.includes(8) ? 8 : config.connections[0]!;
  const last = config.records - config.limit;
  return Array.from({ length: config.depthSteps }, (_, i) => {
    const offset = Math.round((last * (i + 1)) / (config.depthSteps + 1) / config.limit) * config.limit;
    return { ...readPage(connections, offset, config.limit), kind: 'reporting-depth' as const, title: `reporting, page at offset ${offset}` };
  });
}

function fixedPath(path: string): Partial<autocannon.Options> {
  return { requests: [{ method: 'GET', path }] };
}

/**
 * One walker per connection: each starts at `firstPath`, follows the `next` of every page it
 * receives, and starts again at the end. The walkers share one queue of paths to request: a
 * response adds its `next` before its connection asks for its next request, so the queue holds
 * one path per connection.
 */
function walkFollowingNext(firstPath: string, connections: number): Partial<autocannon.Options> {
  const pending: string[] = Array.from({ length: connections }, () => firstPath);
  return {
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => ({ ...request, path: pending.shift() ?? firstPath }),
        onResponse: (_status, body) => {
          pending.push(nextPathIn(body) ?? firstPath);
        },
      },
    ],
  };
}

/** Path and query of the `next` URL at the end of a page's JSON (`…],"next":"http://…"}`). */
export function nextPathIn(body: string): string | undefined {
  const at = body.lastIndexOf('"next":"');
  if (at < 0) return undefined;
  const next = new URL(JSON.parse(body.slice(at + '"next":'.length, body.lastIndexOf('}'))) as string);
  return `${next.pathname}${next.search}`;
}

/** Pages of `limit` records at offsets drawn uniformly from the store (a fixed seed per run). */
function randomSmallPages(records: number, limit: number): Partial<autocannon.Options> {
  let state = 20261122;
  const nextOffset = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return Math.floor((state / 2147483648) * (records - limit));
  };
  return { requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: `${READ_PATH}?limit=${limit}&offset=${nextOffset()}` }) }] };
}

/** PUTs of `bodies` in turn; with `keys`, each request under the next key (a tenant each), every body sent to every tenant. */
export function rotatingBodies(bodies: readonly string[], keys: readonly string[] = []): Partial<autocannon.Options> {
  let sent = 0;
  return {
    requests: [
      {
        method: 'PUT',
        path: '/v1/users/groups/bulk',
        headers: { 'Content-Type': 'application/json' },
        setupRequest: (request) => {
          const n = sent++;
          if (keys.length === 0) return { ...request, body: bodies[n % bodies.length] };
          const body = bodies[Math.floor(n / keys.length) % bodies.length];
          return { ...request, body, headers: { ...request.headers, 'X-API-Key': keys[n % keys.length]! } };
        },
      },
    ],
  };
}
