import type { Client } from 'openapi-fetch';
import type { components, paths } from '../../generated/api.js';
import { eitherSignal } from './paging.js';
import { answered, writeInit, type Sends, type WriteOptions } from './userWrites.js';

/** An import as `GET /v1/imports/{import_id}` shows it. */
export type DataImport = components['schemas']['DataImportResponse']['data_import'];

export interface IngestOptions extends WriteOptions {
  /** Replace the table's records with those of the import (`all=true`). */
  all?: boolean;
  /** Seconds before the import starts, so that further pushes join it. */
  debounce?: number;
}

export interface WaitOptions {
  /** How long to wait for the import to finish before a `ImportWaitTimeout` (default 10 minutes). */
  timeoutMs?: number;
  /** Time between two looks at the import (default 250 ms). */
  intervalMs?: number;
  signal?: AbortSignal;
}

/** A push that was stored: its import, which runs in the background. */
export interface Ingestion {
  readonly importId: string;
  /** The import as it stands now. */
  state(options?: { signal?: AbortSignal }): Promise<DataImport>;
  /** The import once `finished`: `has_error` says whether a table failed or had lines left out (its `error`), each table's `ignored_fields` the keys that are not fields. */
  finished(options?: WaitOptions): Promise<DataImport>;
}

/** `finished()` gave up: the import was not finished by the deadline (it goes on in the server). */
export class ImportWaitTimeout extends Error {
  constructor(
    readonly importId: string,
    readonly last: DataImport,
  ) {
    super(`import ${importId} was not finished after the wait (${last.status}, ${last.progress}%)`);
  }
}

/** `client.tables.ingest`: `POST /v1/tables/{data_table_key}/records/bulk`, and the import it answers. */
export function tableIngest(api: Client<paths>, sends: Sends, clientSignal: AbortSignal | undefined) {
  const state = async (importId: string, signal?: AbortSignal): Promise<DataImport> =>
    answered(await api.GET('/v1/imports/{import_id}', { params: { path: { import_id: importId } }, signal: eitherSignal(signal, clientSignal) })).data_import;

  return async (table: string, records: readonly Record<string, unknown>[], options: IngestOptions = {}): Promise<Ingestion> => {
    const init = writeInit(sends, clientSignal, 'tables.ingest', records.length, Number.MAX_SAFE_INTEGER, options);
    const query = { all: options.all, debounce: options.debounce };
    const accepted = answered(
      await api.POST('/v1/tables/{data_table_key}/records/bulk', {
        body: { data: [...records] },
        ...init,
        params: { ...init.params, path: { data_table_key: table }, query },
      }),
    );
    const importId = accepted.import_id;
    return {
      importId,
      state: ({ signal } = {}) => state(importId, signal),
      async finished({ timeoutMs = 600_000, intervalMs = 250, signal } = {}) {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const now = await state(importId, signal);
          if (now.status === 'finished') return now;
          if (Date.now() + intervalMs > deadline) throw new ImportWaitTimeout(importId, now);
          await new Promise<void>((resolve, reject) => {
            const timer = setTimeout(resolve, intervalMs);
            const stop = eitherSignal(signal, clientSignal);
            stop?.addEventListener('abort', () => (clearTimeout(timer), reject(stop.reason as Error)), { once: true });
          });
        }
      },
    };
  };
}
