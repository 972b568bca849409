import { EXPORT_CHUNK, keyedChunks, positionalChunks } from '../paging/datasetChunks.js';
import type { DatasetReads, StoredTable, Tenant } from '../store.js';
import { firstRow, rowsOf, statement, type Queryable } from './connection.js';
import { attributionReads } from './attributionReads.js';
import { pagedReads } from './pagedReads.js';

const metricKeys = statement<[number], { key: string }>('SELECT key FROM metrics WHERE tenant_id = $1 ORDER BY position');
const dimensionKeys = statement<[number], { key: string }>('SELECT key FROM dimensions WHERE tenant_id = $1 ORDER BY position');
const usersAfter = statement<[number, string, number], { email_key: string; json: string }>(
  'SELECT email_key, json FROM users WHERE tenant_id = $1 AND email_key > $2 ORDER BY email_key LIMIT $3',
);
const tables = statement<[number], StoredTable>('SELECT key, name, fields AS "fieldsJson" FROM data_tables WHERE tenant_id = $1 ORDER BY key');
const emptyFragment = statement<[number], { empty_fragment: string }>('SELECT empty_fragment FROM tenants WHERE id = $1');

/**
 * What `compdata export` reads of a tenant (see `DatasetReads`), each chunk read by key or
 * position (never by skipping rows), on one connection inside one REPEATABLE READ transaction,
 * so that the chunks form one snapshot.
 */
export function datasetReads(db: Queryable, tenant: Tenant): DatasetReads {
  return {
    metricKeys: async () => (await rowsOf(db, metricKeys, tenant.id)).map((row) => row.key),
    dimensionKeys: async () => (await rowsOf(db, dimensionKeys, tenant.id)).map((row) => row.key),
    async *users() {
      let after = '';
      for (;;) {
        const rows = await rowsOf(db, usersAfter, tenant.id, after, EXPORT_CHUNK);
        if (rows.length === 0) return;
        yield rows.map((row) => row.json);
        after = rows[rows.length - 1]!.email_key;
      }
    },
    groupAttributions: async function* () {
      yield* keyedChunks(await attributionReads.groups(db, tenant.id, {}));
    },
    managerAttributions: async function* () {
      yield* keyedChunks(await attributionReads.managers(db, tenant.id, {}));
    },
    reporting: async function* () {
      const fragment = (await firstRow(db, emptyFragment, tenant.id))!.empty_fragment;
      yield* positionalChunks(pagedReads.reporting(db, tenant.id, fragment));
    },
    tables: () => rowsOf(db, tables, tenant.id),
    tableRecords: async function* (key: string) {
      yield* positionalChunks((await pagedReads.tableRecords(db, tenant.id, key))!);
    },
  };
}
