import type { Client } from 'openapi-fetch';
import type { components, operations, paths } from '../../generated/api.js';
import { eitherSignal, walkPages, walkRecords } from './paging.js';
import { ProblemError } from './problemError.js';

type Schemas = components['schemas'];
type V2Query = NonNullable<operations['getV2Statements']['parameters']['query']>;

/** A data structure of `GET /v2/data-structures`. */
export type V2DataStructure = Schemas['V2DataStructure'];
/** The fields of a structure, with their `schema_hash`. */
export type V2FieldListing = Schemas['V2FieldListing'];
/** A v2 record: values by prefixed field key (`standard.id`, `custom.new_arr`, `datatable.amount`). */
export type V2Record = Schemas['V2Record'];
/** A page of v2 records, with `meta` (`next_start_id`, `has_more`, `next_url`). */
export type V2Page = Schemas['V2RecordPage'];

/** Where a v2 walk starts, how it pages, which modification times it keeps. */
export interface V2PageOptions {
  /** The `standard.id` of the record to start after (default: from the first). */
  startId?: V2Query['start_id'];
  /** Records per page, 1 to 2000 (default: the server's, 2000). */
  limit?: V2Query['limit'];
  /** Only records changed after this time (ISO 8601). */
  lastModifiedAfter?: V2Query['last_modified_after'];
  /** Only records changed before this time (ISO 8601). */
  lastModifiedBefore?: V2Query['last_modified_before'];
  /** Stops the walk: the pending request is cancelled and the iterator throws the signal's reason. */
  signal?: AbortSignal;
}

/** Pages of a structure's records and its records one by one; both follow `meta.next_url` to the last page. */
export interface V2PagedRead {
  pages(tableId: string, options?: V2PageOptions): AsyncGenerator<V2Page, void, undefined>;
  records(tableId: string, options?: V2PageOptions): AsyncGenerator<V2Record, void, undefined>;
}

export interface V2Reads {
  /** `GET /v2/data-structures`: the statement reporting, then each data table. */
  dataStructures(options?: { signal?: AbortSignal }): Promise<V2DataStructure[]>;
  /** `GET /v2/data-structures/{table_id}/fields`. */
  fields(tableId: string, options?: { signal?: AbortSignal }): Promise<V2FieldListing>;
  /** `GET /v2/reporting/{table_id}/statements`: the statement reporting structure's records. */
  statements: V2PagedRead;
  /** `GET /v2/reporting/{table_id}/records`: a data table's records. */
  records: V2PagedRead;
}

/** The v2 reads of a client (`client.v2`), over its openapi-fetch client. */
export function v2Reads(api: Client<paths>, baseUrl: string, clientSignal: AbortSignal | undefined): V2Reads {
  const query = ({ startId, limit, lastModifiedAfter, lastModifiedBefore }: V2PageOptions): V2Query => ({
    start_id: startId,
    limit,
    last_modified_after: lastModifiedAfter,
    last_modified_before: lastModifiedBefore,
  });
  const nextUrl = (page: V2Page) => page.meta.next_url ?? undefined;
  const statements: V2PagedRead = {
    pages: (tableId, options = {}) =>
      walkPages(
        (init) => api.GET('/v2/reporting/{table_id}/statements', { params: { path: { table_id: tableId }, query: query(options) }, ...init }),
        baseUrl,
        eitherSignal(options.signal, clientSignal),
        nextUrl,
      ),
    records: (tableId, options) => walkRecords(statements.pages(tableId, options)),
  };
  const records: V2PagedRead = {
    pages: (tableId, options = {}) =>
      walkPages(
        (init) => api.GET('/v2/reporting/{table_id}/records', { params: { path: { table_id: tableId }, query: query(options) }, ...init }),
        baseUrl,
        eitherSignal(options.signal, clientSignal),
        nextUrl,
      ),
    records: (tableId, options) => walkRecords(records.pages(tableId, options)),
  };
  return {
    async dataStructures({ signal } = {}) {
      const { data, error, response } = await api.GET('/v2/data-structures', { signal: eitherSignal(signal, clientSignal) });
      if (data === undefined) throw ProblemError.fromAnswer(error, response);
      return data.data;
    },
    async fields(tableId, { signal } = {}) {
      const { data, error, response } = await api.GET('/v2/data-structures/{table_id}/fields', {
        params: { path: { table_id: tableId } },
        signal: eitherSignal(signal, clientSignal),
      });
      if (data === undefined) throw ProblemError.fromAnswer(error, response);
      // openapi-fetch leaves out of its answer type the properties whose only type is null
      // (`created_at`, `currencies`); the server sends them, as the contract says.
      return data as V2FieldListing;
    },
    statements,
    records,
  };
}
