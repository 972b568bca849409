import type { TableField } from '../../domain/tableJson.js';
import { formatMonth } from '../../domain/months.js';
import type { ExportedUser, SnapshotSteps } from '../engine/snapshotSteps.js';
import type { TableRow } from '../engine/readSteps.js';
import { EXPORT_CHUNK, keyedChunks, positionalChunks } from '../paging/datasetChunks.js';
import type { DatasetReads } from '../vocabulary/adminShapes.js';
import type { TableSummary } from '../vocabulary/readShapes.js';
import type { Tenant } from '../vocabulary/tenancy.js';

/**
 * What `compdata export` reads of a tenant (see `DatasetReads`), inside one snapshot, each
 * chunk read by key or position (never by skipping rows).
 */
export function datasetReads({ reads, dataset }: SnapshotSteps, tenant: Tenant): DatasetReads {
  return {
    metricKeys: async () => dataset.metricKeys(tenant.id),
    dimensionKeys: async () => dataset.dimensionKeys(tenant.id),
    async *users() {
      for (let after = ''; ; ) {
        const rows = await dataset.usersAfter(tenant.id, after, EXPORT_CHUNK);
        if (rows.length === 0) return;
        yield rows.map(exportedUserJson);
        after = rows[rows.length - 1]!.key;
      }
    },
    async *groupAttributions() {
      yield* keyedChunks(await reads.groupAttributions(tenant.id, {}));
    },
    async *managerAttributions() {
      yield* keyedChunks(await reads.managerAttributions(tenant.id, {}));
    },
    async *reporting() {
      yield* positionalChunks(reads.reporting(tenant.id, await dataset.emptyFragment(tenant.id)));
    },
    async *statements() {
      for (let after = '', month = 0; ; ) {
        const rows = await dataset.statementsAfter(tenant.id, after, month, EXPORT_CHUNK);
        if (rows.length === 0) return;
        yield rows.map((row) => JSON.stringify({ user: row.email, month: formatMonth(row.month), status: row.status }));
        ({ key: after, month } = rows[rows.length - 1]!);
      }
    },
    tables: async () => (await dataset.tables(tenant.id)).map(tableOf),
    async *tableRecords(key: string) {
      yield* positionalChunks((await reads.tableRecords(tenant.id, key))!);
    },
  };
}

/** A user as a dataset holds it: the user object, then its custom attributes and last month when it has them. */
function exportedUserJson(row: ExportedUser): string {
  if (row.attributes === '{}' && row.archivedAfter === null) return row.json;
  let more = row.attributes === '{}' ? '' : `,"attributes":${row.attributes}`;
  if (row.archivedAfter !== null) more += `,"archived_after":"${formatMonth(row.archivedAfter)}"`;
  return `${row.json.slice(0, -1)}${more}}`;
}

/** A data table as the store hands it out: its fields parsed. */
export function tableOf(row: TableRow): TableSummary {
  return { key: row.key, name: row.name, fields: JSON.parse(row.fieldsJson) as TableField[], recordCount: row.recordCount ?? 0 };
}
