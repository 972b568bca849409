import type { EngineReads } from '../engine/readSteps.js';
import type { Tenant } from '../vocabulary/tenancy.js';
import { attributionReads } from './attributionReads.js';
import { changeReads } from './changeReads.js';
import type { Db } from './db.js';
import { callQueueRead, dueCallReads } from './deliverySteps.js';
import { discoveryReads } from './discoveryReads.js';
import { filteredReporting } from './filteredReporting.js';
import { importReads } from './importSteps.js';
import { pagedReads } from './pagedReads.js';
import { tenantDirectoryReads } from './tenantDirectory.js';
import { v2Reads } from './v2Reads.js';

/** The reads of the service on one connection, each statement prepared once. */
export function sqliteReads(db: Db): EngineReads {
  const tenant = db.prepare<[string], Tenant>('SELECT id, name FROM tenants WHERE name = ?');
  const paged = pagedReads(db);
  const filtered = filteredReporting(db);
  const attributions = attributionReads(db);
  const changes = changeReads(db);
  const discovery = discoveryReads(db);
  const v2 = v2Reads(db);
  const imports = importReads(db);
  const directory = tenantDirectoryReads(db);
  return {
    findTenant: (name) => tenant.get(name),
    tenantsAfter: directory.tenantsAfter,
    tenantSizes: directory.tenantSizes,
    expiredSandboxes: directory.expiredSandboxes,
    keptCreate: directory.keptCreate,
    dueWebhookCalls: dueCallReads(db),
    webhookQueue: callQueueRead(db),
    reporting: (tenantId, emptyFragment) => paged.reporting(tenantId, emptyFragment),
    filteredReporting: (tenantId, emptyFragment, filter) => filtered.reporting(tenantId, emptyFragment, filter),
    tableRecords: (tenantId, tableKey) => paged.tableRecords(tenantId, tableKey),
    groupAttributions: (tenantId, filter) => attributions.groups(tenantId, filter),
    managerAttributions: (tenantId, filter) => attributions.managers(tenantId, filter),
    reportingChanges: (tenantId, emptyFragment) => changes.reporting(tenantId, emptyFragment),
    tableChanges: (tenantId, tableKey) => changes.tableRecords(tenantId, tableKey),
    tables: (tenantId, key) => discovery.tables(tenantId, key),
    reportingSchema: (tenantId) => discovery.reportingSchema(tenantId),
    v2Statements: (tenantId) => v2.statements(tenantId),
    v2TableRecords: (tenantId, tableKey) => v2.tableRecords(tenantId, tableKey),
    importOf: (tenantId, id) => imports.importOf(tenantId, id),
    pendingImports: () => imports.pendingImports(),
  };
}
