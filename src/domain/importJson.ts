import { LISTED_FAILURES, type IgnoredField, type LineFailure } from './tableLines.js';

/**
 * Imports of data tables (docs/rules.md#table-imports) as `GET /v1/imports/{import_id}` shows
 * them: rendered from the rows stored, with their progress.
 */
type ImportStatus = 'scheduled' | 'started' | 'finished';

/** Why a table was not imported (its records `null`), or which of its lines were not (a `ParsingError` beside records imported). */
export interface ImportError {
  readonly title: 'ParsingError' | 'StorageError' | 'TableNotFound' | 'ImportError';
  readonly description: string;
  readonly parsing_error_details?: LineFailure[];
}

/** An import as stored. */
export interface StoredImport {
  readonly id: string;
  readonly status: ImportStatus;
  readonly createdAt: string;
  readonly launchedAt: string | null;
  readonly finishedAt: string | null;
  /** Its tables, in the order of their first push. */
  readonly tables: readonly StoredImportTable[];
}

export interface StoredImportTable {
  readonly key: string;
  readonly status: ImportStatus;
  /** Records imported, once finished; `null` while not, and when it failed. */
  readonly records: number | null;
  /** The JSON of its {@link ImportError}, when it failed or lines of it were not imported. */
  readonly error: string | null;
  /** The JSON of its {@link IgnoredField}s, when its lines had properties that are not fields. */
  readonly ignored: string | null;
}

/** The body of `GET /v1/imports/{import_id}`. */
export function renderImport(stored: StoredImport) {
  const finished = stored.tables.filter((table) => table.status === 'finished').length;
  const progress = stored.status === 'finished' ? 100 : stored.tables.length === 0 ? 0 : Math.floor((100 * finished) / stored.tables.length);
  return {
    data_import: {
      id: stored.id,
      created_at: stored.createdAt,
      launched_at: stored.launchedAt,
      finished_at: stored.finishedAt,
      status: stored.status,
      progress,
      has_error: stored.tables.some((table) => table.error !== null),
      data_tables_details: stored.tables.map((table) => ({
        type: 'api' as const,
        status: table.status,
        data_table_key: table.key,
        progress: table.status === 'finished' ? 100 : 0,
        number_of_records: table.records,
        error: table.error === null ? null : (JSON.parse(table.error) as ImportError),
        ignored_fields: table.ignored === null ? [] : (JSON.parse(table.ignored) as IgnoredField[]),
      })),
    },
  };
}

/**
 * A table with lines that do not fit: every one counted, the first {@link LISTED_FAILURES}
 * listed; `imported` records of its other lines were imported (0: none fit, the table failed).
 */
export function parsingError(table: string, failures: readonly LineFailure[], imported: number): ImportError {
  const count = failures.length === 1 ? '1 line' : `${failures.length} lines`;
  const listed = failures.length > LISTED_FAILURES ? ` (the first ${LISTED_FAILURES} are listed)` : '';
  const outcome = imported === 0 ? 'nothing of the table was imported' : `${failures.length === 1 ? 'it was' : 'they were'} not imported; the other lines were (${imported} ${imported === 1 ? 'record' : 'records'})`;
  return {
    title: 'ParsingError',
    description: `${count} of the import ${failures.length === 1 ? 'does' : 'do'} not fit the table ${table}${listed}: ${outcome}.`,
    parsing_error_details: failures.slice(0, LISTED_FAILURES),
  };
}

export const storageError = (): ImportError => ({
  title: 'StorageError',
  description: 'The disk that holds the database is full: nothing of the table was imported. Push again once space is freed.',
});

export const tableNotFound = (table: string): ImportError => ({
  title: 'TableNotFound',
  description: `The data table ${table} was deleted before the import ran: nothing was imported.`,
});

export const importFailed = (): ImportError => ({
  title: 'ImportError',
  description: 'The import of the table failed: nothing of the table was imported. Push again.',
});
