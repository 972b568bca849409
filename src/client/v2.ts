import type { Client } from 'openapi-fetch';
import type { operations, paths } from '../../generated/api.js';
import { eitherSignal, walkRecords, type PageRequest } from './paging.js';
import { dataOf } from './problemError.js';
import type { DataStructureListing, V2FieldListing, V2Record, V2RecordPage } from './records.js';

type Query = NonNullable<operations['getV2Statements']['parameters']['query']>;

/** Where a v2 walk starts, how it pages, and which records it keeps. */
export interface V2PageOptions {
  /** The id of the record to start after (a page's `meta.next_start_id`); absent: from the first record. */
  startId?: Query['start_id'];
  /** Records per page, 1 to 2000 (default: the server's, 2000). */
  limit?: Query['limit'];
  /**
   * Only the records last modified after this time: an ISO 8601 date-time with a zone, or a
   * `Date`; exact to the millisecond. Keep the largest `standard.last_modified_at` you received
   * and pass it here to read what changed since.
   */
  lastModifiedAfter?: Query['last_modified_after'] | Date;
  /** Only the records last modified before this time (as `lastModifiedAfter`). */
  lastModifiedBefore?: Query['last_modified_before'] | Date;
  /** Stops the walk: the pending request is cancelled and the iterator throws the signal's reason. */
  signal?: AbortSignal;
}

/** Options of a single v2 read. */
export interface V2CallOptions {
  signal?: AbortSignal;
}

/**
 * The statement reporting records (`GET /v2/reporting/{table_id}/statements`). Without an id,
 * the client finds it with `structures()` (the structure of type `statement_reporting`) once.
 */
export interface V2StatementReads {
  pages(options?: V2PageOptions): AsyncGenerator<V2RecordPage, void, undefined>;
  pages(tableId: string | undefined, options?: V2PageOptions): AsyncGenerator<V2RecordPage, void, undefined>;
  records(options?: V2PageOptions): AsyncGenerator<V2Record, void, undefined>;
  records(tableId: string | undefined, options?: V2PageOptions): AsyncGenerator<V2Record, void, undefined>;
}

/** A data table's records (`GET /v2/reporting/{table_id}/records`), by the table's structure id. */
export interface V2TableReads {
  pages(tableId: string, options?: V2PageOptions): AsyncGenerator<V2RecordPage, void, undefined>;
  records(tableId: string, options?: V2PageOptions): AsyncGenerator<V2Record, void, undefined>;
}

/** The v2 reads. Record walks follow `meta.next_url` to the last page, on the client's origin only. */
export interface V2Reads {
  /** `GET /v2/data-structures`: the statement reporting, then each data table, each with its `id`. */
  structures(options?: V2CallOptions): Promise<DataStructureListing>;
  /** `GET /v2/data-structures/{table_id}/fields`. */
  fields(tableId: string, options?: V2CallOptions): Promise<V2FieldListing>;
  statements: V2StatementReads;
  records: V2TableReads;
}

/** How the client walks pages: the first page's request, where a page names the next, the call's signal. */
export type Walk = <P>(
  request: PageRequest<P>,
  nextOf: (page: P) => string | null | undefined,
  signal: AbortSignal | undefined,
) => AsyncGenerator<P, void, undefined>;

const nextUrl = (page: V2RecordPage) => page.meta.next_url;
const time = (value: string | Date | undefined) => (value instanceof Date ? value.toISOString() : value);

function query({ startId, limit, lastModifiedAfter, lastModifiedBefore }: V2PageOptions): Query {
  return { start_id: startId, limit, last_modified_after: time(lastModifiedAfter), last_modified_before: time(lastModifiedBefore) };
}

/** `(options)` or `(tableId, options)`. */
function idAndOptions(first: string | V2PageOptions | undefined, second: V2PageOptions | undefined): [string | undefined, V2PageOptions] {
  return typeof first === 'string' ? [first, second ?? {}] : [undefined, first ?? second ?? {}];
}

export function v2Reads(api: Client<paths>, walk: Walk, clientSignal: AbortSignal | undefined): V2Reads {
  /** The statement structure's id, once found: it is derived from what the structure is, so it never changes. */
  let statementsId: string | undefined;

  const structures: V2Reads['structures'] = async ({ signal } = {}) =>
    dataOf(await api.GET('/v2/data-structures', { signal: eitherSignal(signal, clientSignal) }));

  // The contract's type: openapi-fetch's reading of a response type drops a property typed
  // exactly `null` (`created_at`, `currencies`), which the answer does carry.
  const fields: V2Reads['fields'] = async (tableId, { signal } = {}) =>
    dataOf(await api.GET('/v2/data-structures/{table_id}/fields', { params: { path: { table_id: tableId } }, signal: eitherSignal(signal, clientSignal) })) as V2FieldListing;

  async function findStatements(signal: AbortSignal | undefined): Promise<string> {
    if (statementsId === undefined) {
      const found = (await structures({ signal })).data.find((structure) => structure.type === 'statement_reporting');
      if (found === undefined) throw new Error('GET /v2/data-structures lists no structure of type statement_reporting');
      statementsId = found.id;
    }
    return statementsId;
  }

  async function* statementPages(first?: string | V2PageOptions, second?: V2PageOptions): AsyncGenerator<V2RecordPage, void, undefined> {
    const [given, options] = idAndOptions(first, second);
    const tableId = given ?? (await findStatements(options.signal));
    yield* walk(
      (init) => api.GET('/v2/reporting/{table_id}/statements', { params: { path: { table_id: tableId }, query: query(options) }, ...init }),
      nextUrl,
      options.signal,
    );
  }

  const tablePages: V2TableReads['pages'] = (tableId, options = {}) =>
    walk(
      (init) => api.GET('/v2/reporting/{table_id}/records', { params: { path: { table_id: tableId }, query: query(options) }, ...init }),
      nextUrl,
      options.signal,
    );

  return {
    structures,
    fields,
    statements: { pages: statementPages, records: (first?: string | V2PageOptions, second?: V2PageOptions) => walkRecords(statementPages(first, second)) },
    records: { pages: tablePages, records: (tableId, options) => walkRecords(tablePages(tableId, options)) },
  };
}
