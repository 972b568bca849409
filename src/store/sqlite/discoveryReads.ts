import type { TableRow } from '../engine/readSteps.js';
import type { ReportingSchema } from '../vocabulary/readShapes.js';
import type { Db } from './db.js';

/** The reads of the discovery extensions (`GET /v1/tables`, `GET /v1/reporting/fields`), prepared once per connection. */
export function discoveryReads(db: Db) {
  const tables = db.prepare<{ tenant: number; key: string | null }, TableRow>(
    `SELECT t.key, t.name, t.fields AS fieldsJson,
            (SELECT ifnull(max(r.pos) + 1, 0) FROM table_records r WHERE r.table_pk = t.pk) AS recordCount
     FROM data_tables t WHERE t.tenant_id = @tenant AND (@key IS NULL OR t.key = @key) ORDER BY t.key`,
  );
  const metricKeys = db.prepare<[number], string>('SELECT key FROM metrics WHERE tenant_id = ? ORDER BY position').pluck();
  const dimensionGroups = db
    .prepare<[number], [string, string | null]>(
      `SELECT d.key, g.name FROM dimensions d LEFT JOIN groups g ON g.dimension_pk = d.pk
       WHERE d.tenant_id = ? ORDER BY d.position, g.name`,
    )
    .raw();
  // The metrics and the dimensions from one snapshot.
  const reportingSchema = db.transaction((tenantId: number): ReportingSchema => {
    const dimensions: ReportingSchema['dimensions'] = [];
    for (const [key, group] of dimensionGroups.all(tenantId)) {
      if (dimensions.at(-1)?.key !== key) dimensions.push({ key, groups: [] });
      if (group !== null) dimensions.at(-1)!.groups.push(group);
    }
    return { metricKeys: metricKeys.all(tenantId), dimensions };
  });

  return {
    tables: (tenantId: number, key?: string): TableRow[] => tables.all({ tenant: tenantId, key: key ?? null }),
    reportingSchema: (tenantId: number): ReportingSchema => reportingSchema.deferred(tenantId),
  };
}
