import type { EngineReads } from '../engine/readSteps.js';
import type { Tenant } from '../vocabulary/tenancy.js';
import { attributionReads } from './attributionReads.js';
import { changeReads } from './changeReads.js';
import { firstRow, statement, type Queryable } from './connection.js';
import { discoveryReads } from './discoveryReads.js';
import { filteredReporting } from './filteredReporting.js';
import { importReads } from './importSteps.js';
import { pagedReads } from './pagedReads.js';
import { tenantDirectoryReads } from './tenantDirectory.js';
import { callQueueRead, dueCallReads } from './deliverySteps.js';
import { v2Reads } from './v2Reads.js';

const tenant = statement<[string], Tenant>('SELECT id, name FROM tenants WHERE name = $1');

/** The reads of the service over a pool, or over one transaction's connection. */
export function postgresReads(db: Queryable): EngineReads {
  return {
    findTenant: (name) => firstRow(db, tenant, name),
    ...tenantDirectoryReads(db),
    dueWebhookCalls: dueCallReads(db),
    webhookQueue: callQueueRead(db),
    reporting: (tenantId, emptyFragment) => pagedReads.reporting(db, tenantId, emptyFragment),
    filteredReporting: (tenantId, emptyFragment, filter) => filteredReporting(db, tenantId, emptyFragment, filter),
    tableRecords: (tenantId, tableKey) => pagedReads.tableRecords(db, tenantId, tableKey),
    groupAttributions: (tenantId, filter) => attributionReads.groups(db, tenantId, filter),
    managerAttributions: (tenantId, filter) => attributionReads.managers(db, tenantId, filter),
    reportingChanges: (tenantId, emptyFragment) => changeReads.reporting(db, tenantId, emptyFragment),
    tableChanges: (tenantId, tableKey) => changeReads.tableRecords(db, tenantId, tableKey),
    tables: (tenantId, key) => discoveryReads.tables(db, tenantId, key),
    reportingSchema: (tenantId) => discoveryReads.reportingSchema(db, tenantId),
    v2Statements: (tenantId) => v2Reads.statements(db, tenantId),
    v2TableRecords: (tenantId, tableKey) => v2Reads.tableRecords(db, tenantId, tableKey),
    importOf: (tenantId, id) => importReads.importOf(db, tenantId, id),
    pendingImports: () => importReads.pendingImports(db),
  };
}
