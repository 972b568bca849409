import type { TableRow } from '../engine/readSteps.js';
import type { ReportingSchema } from '../vocabulary/readShapes.js';
import { firstRow, rowsOf, statement, storable, type Queryable } from './connection.js';

const tables = statement<[number, string | null], TableRow>(
  `SELECT t.key, t.name, t.fields AS "fieldsJson",
          (SELECT coalesce(max(r.pos) + 1, 0) FROM table_records r WHERE r.tenant_id = $1 AND r.table_pk = t.pk) AS "recordCount"
   FROM data_tables t WHERE t.tenant_id = $1 AND ($2::text IS NULL OR t.key = $2) ORDER BY t.key`,
);
// One statement, one snapshot: the metric keys and each dimension with its group names.
const reportingSchema = statement<[number], ReportingSchema>(
  `SELECT (SELECT coalesce(json_agg(m.key ORDER BY m.position), '[]') FROM metrics m WHERE m.tenant_id = $1) AS "metricKeys",
          (SELECT coalesce(json_agg(json_build_object('key', d.key, 'groups',
                    (SELECT coalesce(json_agg(g.name ORDER BY g.name), '[]') FROM groups g WHERE g.tenant_id = $1 AND g.dimension_pk = d.pk))
                  ORDER BY d.position), '[]')
           FROM dimensions d WHERE d.tenant_id = $1) AS dimensions`,
);

/** The reads of the discovery extensions (`GET /v1/tables`, `GET /v1/reporting/fields`). */
export const discoveryReads = {
  async tables(db: Queryable, tenantId: number, key?: string): Promise<TableRow[]> {
    if (key !== undefined && !storable(key)) return [];
    return rowsOf(db, tables, tenantId, key ?? null);
  },
  reportingSchema: async (db: Queryable, tenantId: number): Promise<ReportingSchema> => (await firstRow(db, reportingSchema, tenantId))!,
};
