import type { DatasetSteps, ExportedStatement, ExportedUser } from '../engine/snapshotSteps.js';
import type { TableRow } from '../engine/readSteps.js';
import { firstRow, rowsOf, statement, type Queryable } from './connection.js';

const metricKeys = statement<[number], { key: string }>('SELECT key FROM metrics WHERE tenant_id = $1 ORDER BY position');
const dimensionKeys = statement<[number], { key: string }>('SELECT key FROM dimensions WHERE tenant_id = $1 ORDER BY position');
const usersAfter = statement<[number, string, number], ExportedUser>(
  'SELECT email_key AS key, json, attributes, archived_after AS "archivedAfter" FROM users WHERE tenant_id = $1 AND email_key > $2 ORDER BY email_key LIMIT $3',
);
const statementsAfter = statement<[number, string, number, number], ExportedStatement>(
  `SELECT u.email_key AS key, u.email, s.month, s.status FROM statements s JOIN users u ON u.tenant_id = $1 AND u.pk = s.user_pk
   WHERE s.tenant_id = $1 AND (u.email_key, s.month) > ($2, $3) ORDER BY u.email_key, s.month LIMIT $4`,
);
const tables = statement<[number], TableRow>('SELECT key, name, fields AS "fieldsJson" FROM data_tables WHERE tenant_id = $1 ORDER BY key');
const emptyFragment = statement<[number], { empty_fragment: string }>('SELECT empty_fragment FROM tenant_state WHERE tenant_id = $1');

/** What `compdata export` reads besides the paged listings (../admin/datasetReading.ts), on the snapshot's connection. */
export function datasetSteps(db: Queryable): DatasetSteps {
  return {
    metricKeys: async (tenantId) => (await rowsOf(db, metricKeys, tenantId)).map((row) => row.key),
    dimensionKeys: async (tenantId) => (await rowsOf(db, dimensionKeys, tenantId)).map((row) => row.key),
    usersAfter: (tenantId, after, n) => rowsOf(db, usersAfter, tenantId, after, n),
    statementsAfter: (tenantId, after, month, n) => rowsOf(db, statementsAfter, tenantId, after, month, n),
    tables: (tenantId) => rowsOf(db, tables, tenantId),
    emptyFragment: async (tenantId) => (await firstRow(db, emptyFragment, tenantId))!.empty_fragment,
  };
}
