import { attributionReads } from './attributionReads.js';
import type { Db } from './db.js';
import { pagedReads, type PagedSource } from './pagedReads.js';
import type { Tenant } from './tenants.js';

/** Rows read at a time: memory stays bounded whatever the tenant's size. */
export const EXPORT_CHUNK = 2_000;

export interface StoredTable {
  key: string;
  name: string;
  /** The fields as stored: JSON text of `[{key, type}, ...]`. */
  fieldsJson: string;
}

/**
 * What `compdata export` reads of a tenant, section by section, each as chunks of JSON texts
 * read by key (never by skipping rows), in the order of the API: users by e-mail address
 * (without regard to case), attributions as the read-back operations list them, records and
 * table records by position. Run inside one read transaction so that the chunks form one
 * snapshot.
 */
export function datasetReads(db: Db, tenant: Tenant) {
  const metricKeys = db.prepare('SELECT key FROM metrics WHERE tenant_id = ? ORDER BY position').pluck();
  const dimensionKeys = db.prepare('SELECT key FROM dimensions WHERE tenant_id = ? ORDER BY position').pluck();
  const usersAfter = db
    .prepare(
      `SELECT email, json FROM users WHERE tenant_id = ? AND email > ? COLLATE NOCASE
       ORDER BY email COLLATE NOCASE LIMIT ?`,
    )
    .raw();
  const tables = db.prepare('SELECT key, name, fields AS fieldsJson FROM data_tables WHERE tenant_id = ? ORDER BY key');
  const emptyFragment = db.prepare('SELECT empty_fragment FROM tenants WHERE id = ?').pluck();
  const paged = pagedReads(db);
  const attributions = attributionReads(db);

  return {
    metricKeys: () => metricKeys.all(tenant.id) as string[],
    dimensionKeys: () => dimensionKeys.all(tenant.id) as string[],
    *users(): Generator<string[]> {
      let after = '';
      for (;;) {
        const rows = usersAfter.all(tenant.id, after, EXPORT_CHUNK) as [string, string][];
        if (rows.length === 0) return;
        yield rows.map(([, json]) => json);
        after = rows[rows.length - 1]![0];
      }
    },
    groupAttributions: () => keyedChunks(attributions.groups(tenant.id, {})),
    managerAttributions: () => keyedChunks(attributions.managers(tenant.id, {})),
    reporting: () => positionalChunks(paged.reporting(tenant.id, emptyFragment.get(tenant.id) as string)),
    tables: () => tables.all(tenant.id) as StoredTable[],
    tableRecords: (key: string) => positionalChunks(paged.tableRecords(tenant.id, key)!),
  };
}

export type DatasetReads = ReturnType<typeof datasetReads>;

/** A source with dense positions, read chunk by chunk from position 0 (each chunk seeks by position). */
function* positionalChunks(source: PagedSource): Generator<string[]> {
  for (let from = 0; ; from += EXPORT_CHUNK) {
    const rows = source.rows(from, EXPORT_CHUNK);
    if (rows.length > 0) yield rows;
    if (rows.length < EXPORT_CHUNK) return;
  }
}

/** A source read by key: each chunk seeks past the last key of the one before. */
function* keyedChunks(source: PagedSource): Generator<string[]> {
  const seek = source.seek!;
  let rows = seek.keyedRows(0, EXPORT_CHUNK);
  while (rows.length > 0) {
    yield rows.map(([row]) => row);
    if (rows.length < EXPORT_CHUNK) return;
    rows = seek.rowsAfter(rows[rows.length - 1]![1], EXPORT_CHUNK) ?? [];
  }
}
