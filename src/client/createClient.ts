import createFetchClient, { type Client } from 'openapi-fetch';
import type { operations, paths } from '../../generated/api.js';
import { bulkUpserts, type BulkUpserts } from './attributions.js';
import { keepingConsistency } from './consistency.js';
import { eitherSignal, walkPages, walkRecords, type PageOptions, type PageRequest } from './paging.js';
import type { CustomFields, GroupAttribution, ManagerAttribution, Page, ReportingRecord, TableFields, TableRecord } from './records.js';
import { retryingFetch, retryPolicy, type RetryOptions, type Send } from './retry.js';
import { v2Reads, type V2Reads, type Walk } from './v2.js';
import { tableIngest, type IngestOptions, type Ingestion } from './tableIngest.js';
import { userWrites, type ManagerWrites, type UserWrites } from './userWrites.js';

export interface ClientOptions {
  /**
   * The server's base URL, e.g. `https://compdata.example.com`: its `--public-url` when it has
   * one, since pages are followed only on this origin (the API key is not sent elsewhere).
   */
  baseUrl: string;
  /** Sent as `X-API-Key` on every request. */
  apiKey: string;
  /** Sends a request (default: the global `fetch`); every request of the client goes through it. */
  fetch?: (request: Request) => Promise<Response>;
  /** How requests are retried (see `RetryOptions`); `false`: never. */
  retry?: RetryOptions | false;
  /** Cancels every request of the client, together with each call's own signal. */
  signal?: AbortSignal;
}

type Query<Operation extends keyof operations> = NonNullable<operations[Operation]['parameters']['query']>;
/** Filters of `GET /v1/users/groups`, with where to start and how to page. */
export type GroupPageOptions = PageOptions & Pick<Query<'getGroupAttributions'>, 'user' | 'group_dimension'>;
/** Filter of `GET /v1/users/managers`, with where to start and how to page. */
export type ManagerPageOptions = PageOptions & Pick<Query<'getManagerAttributions'>, 'user'>;

/** Pages of a paged read, and its records one by one; both follow `next` to the last page. */
export interface PagedRead<R, O = PageOptions> {
  pages(options?: O): AsyncGenerator<Page<R>, void, undefined>;
  records(options?: O): AsyncGenerator<R, void, undefined>;
}

export interface CompdataClient {
  /** `GET /v1/reporting`. Name the custom fields you read to type them: `records<{ metrics: 'new_arr'; dimensions: 'region' }>()`. */
  reporting: {
    pages<F extends CustomFields | undefined = undefined>(options?: PageOptions): AsyncGenerator<Page<ReportingRecord<F>>, void, undefined>;
    records<F extends CustomFields | undefined = undefined>(options?: PageOptions): AsyncGenerator<ReportingRecord<F>, void, undefined>;
  };
  /**
   * `GET /v1/tables/{key}/records`. Name the fields you read to type them: `records<{ amount: number | null }>('deals')`.
   * `ingest(key, records, { all, debounce, idempotencyKey })`: `POST /v1/tables/{key}/records/bulk`,
   * resolved once the push is stored, with its import: `await (await ingest(...)).finished()`.
   */
  tables: {
    ingest(table: string, records: readonly Record<string, unknown>[], options?: IngestOptions): Promise<Ingestion>;
    pages<T extends TableFields | undefined = undefined>(table: string, options?: PageOptions): AsyncGenerator<Page<TableRecord<T>>, void, undefined>;
    records<T extends TableFields | undefined = undefined>(table: string, options?: PageOptions): AsyncGenerator<TableRecord<T>, void, undefined>;
  };
  /** The bulk upsert, and the read-backs of what it stored (`GET /v1/users/groups`, `GET /v1/users/managers`). */
  attributions: BulkUpserts & {
    groups: PagedRead<GroupAttribution, GroupPageOptions>;
    managers: PagedRead<ManagerAttribution, ManagerPageOptions>;
  };
  /** `PUT /v1/users/bulk` (`bulkUpsert`) and `DELETE /v1/users/archive/bulk` (`archive`). */
  users: UserWrites;
  /** `PUT /v1/users/managers/bulk` (`bulkUpsert`). */
  managers: ManagerWrites;
  /**
   * The v2 reads: `structures()` (each structure's `id`), `fields(id)`, and `pages()` and
   * `records()` of `statements` (the id is optional) and of a data table's `records(id)`, which
   * follow `meta.next_url` to the last page. Options: `startId`, `limit`, `lastModifiedAfter`,
   * `lastModifiedBefore`, `signal`.
   */
  v2: V2Reads;
  /**
   * The underlying openapi-fetch client, typed by the contract, with the same key, `fetch` and
   * retries: for the operations above by hand, and for the others (`/healthz`, `/openapi.json`).
   * It returns `{ data, error, response }` and does not throw on a problem answer.
   */
  api: Client<paths>;
  /**
   * The latest consistency token the client received (the `Compdata-Consistency` of a write's
   * answer), which it sends on every read so that a server with read replicas answers from one
   * that has the write; `undefined` until a write's answer carries one.
   */
  consistency(): string | undefined;
}

/** A client of one compdata server, for one API key (so one tenant). */
export function createClient(options: ClientOptions): CompdataClient {
  const { baseUrl, apiKey, signal: clientSignal } = options;
  new URL(baseUrl); // throws a TypeError on a URL that is not absolute, before any request
  const policy = retryPolicy(options.retry);
  const consistency = keepingConsistency(options.fetch ?? ((request) => globalThis.fetch(request)));
  const send: Send = consistency.send;
  const sends = { default: retryingFetch(send, policy), retried: retryingFetch(send, { ...policy, writes: true }), once: send };
  const api = createFetchClient<paths>({ baseUrl, headers: { 'X-API-Key': apiKey }, fetch: sends.default });

  const follow: Walk = (request, nextOf, signal) => walkPages(request, nextOf, baseUrl, eitherSignal(signal, clientSignal));

  /** The walk of one v1 operation, typed as the caller's records (the generics are the caller's word, see records.ts). */
  function walk<R>(request: PageRequest<{ count: number; data: unknown[]; next?: string }>, signal: AbortSignal | undefined) {
    return follow(request, (page) => page.next, signal) as AsyncGenerator<Page<R>, void, undefined>;
  }

  const reporting: CompdataClient['reporting'] = {
    pages: ({ offset, limit, signal } = {}) =>
      walk((init) => api.GET('/v1/reporting', { params: { query: { offset, limit } }, ...init }), signal),
    records: (pageOptions) => walkRecords(reporting.pages(pageOptions)),
  };

  const tables: CompdataClient['tables'] = {
    ingest: tableIngest(api, sends, clientSignal),
    pages: (table, { offset, limit, signal } = {}) =>
      walk(
        (init) => api.GET('/v1/tables/{data_table_key}/records', { params: { path: { data_table_key: table }, query: { offset, limit } }, ...init }),
        signal,
      ),
    records: (table, pageOptions) => walkRecords(tables.pages(table, pageOptions)),
  };

  const groups: PagedRead<GroupAttribution, GroupPageOptions> = {
    pages: ({ offset, limit, signal, user, group_dimension } = {}) =>
      walk((init) => api.GET('/v1/users/groups', { params: { query: { user, group_dimension, offset, limit } }, ...init }), signal),
    records: (pageOptions) => walkRecords(groups.pages(pageOptions)),
  };

  const managers: PagedRead<ManagerAttribution, ManagerPageOptions> = {
    pages: ({ offset, limit, signal, user } = {}) =>
      walk((init) => api.GET('/v1/users/managers', { params: { query: { user, offset, limit } }, ...init }), signal),
    records: (pageOptions) => walkRecords(managers.pages(pageOptions)),
  };

  const writes = userWrites(api, sends, clientSignal);
  return {
    reporting,
    tables,
    attributions: { ...bulkUpserts(api, sends, clientSignal), groups, managers },
    v2: v2Reads(api, follow, clientSignal),
    users: writes.users,
    managers: writes.managers,
    api,
    consistency: () => consistency.latest(),
  };
}
