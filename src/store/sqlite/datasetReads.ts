import { EXPORT_CHUNK, keyedChunks, positionalChunks } from '../paging/datasetChunks.js';
import type { DatasetReads, StoredTable, Tenant } from '../store.js';
import { attributionReads } from './attributionReads.js';
import type { Db } from './db.js';
import { pagedReads } from './pagedReads.js';

/**
 * What `compdata export` reads of a tenant (see `DatasetReads`), each chunk read by key or
 * position (never by skipping rows). Run inside one read transaction so that the chunks form
 * one snapshot.
 */
export function datasetReads(db: Db, tenant: Tenant): DatasetReads {
  const metricKeys = db.prepare<[number], string>('SELECT key FROM metrics WHERE tenant_id = ? ORDER BY position').pluck();
  const dimensionKeys = db.prepare<[number], string>('SELECT key FROM dimensions WHERE tenant_id = ? ORDER BY position').pluck();
  const usersAfter = db
    .prepare<[number, string, number], [string, string]>(
      `SELECT email, json FROM users WHERE tenant_id = ? AND email > ? COLLATE NOCASE
       ORDER BY email COLLATE NOCASE LIMIT ?`,
    )
    .raw();
  const tables = db.prepare<[number], StoredTable>('SELECT key, name, fields AS fieldsJson FROM data_tables WHERE tenant_id = ? ORDER BY key');
  const emptyFragment = db.prepare<[number], string>('SELECT empty_fragment FROM tenants WHERE id = ?').pluck();
  const paged = pagedReads(db);
  const attributions = attributionReads(db);

  return {
    metricKeys: async () => metricKeys.all(tenant.id),
    dimensionKeys: async () => dimensionKeys.all(tenant.id),
    async *users() {
      let after = '';
      for (;;) {
        const rows = usersAfter.all(tenant.id, after, EXPORT_CHUNK);
        if (rows.length === 0) return;
        yield rows.map(([, json]) => json);
        after = rows[rows.length - 1]![0];
      }
    },
    groupAttributions: () => keyedChunks(attributions.groups(tenant.id, {})),
    managerAttributions: () => keyedChunks(attributions.managers(tenant.id, {})),
    reporting: () => positionalChunks(paged.reporting(tenant.id, emptyFragment.get(tenant.id)!)),
    tables: async () => tables.all(tenant.id),
    tableRecords: (key: string) => positionalChunks(paged.tableRecords(tenant.id, key)!),
  };
}
