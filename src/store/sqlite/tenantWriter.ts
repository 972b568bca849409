import { firstManagerCycle } from '../../domain/bulkChecks.js';
import type { DatasetError } from '../../domain/datasetError.js';
import { applyOverride, overrideWrites, type Period } from '../../domain/periods.js';
import { renderUser, type ReportingUser } from '../../domain/reportingJson.js';
import type { TableField, TableRecordInput } from '../../domain/tableJson.js';
import { emailTaken, newCustomKeys, ownManagerError, unknownDimensionKey, unknownUserId } from '../loadChecks.js';
import { attributionStatements, type AttributionStatements } from './attributions.js';
import type { Db } from './db.js';
import { changeStamps } from './changeStamps.js';
import { dimensionValuesRefresher } from './dimensionValues.js';
import { RecordWriter } from './recordWriter.js';
import { tenantWriterStatements, type TenantWriterStatements } from './tenantWriterStatements.js';
import {
  itemPath,
  type GroupAttributionInput,
  type ManagerAttributionInput,
  type ManagerChain,
  type Origin,
  type ReportingLineInput,
  type TenantWriter,
} from '../tenantWriting.js';

/**
 * Writes one tenant's data: metrics, dimensions, users, attributions, reporting records and
 * data tables, keeping the invariants of migrations.ts. Users are upserted by id, records by id
 * (a stored record keeps its position), attributions override the stored ones of their slot in
 * their months (the override rule of docs/rules.md#bulk-attributions). Errors are
 * {@link DatasetError}s with the JSON path of the item in the dataset (`origin` says where a
 * batch starts).
 *
 * It runs no transaction of its own: the caller wraps a whole load in one, so that a failed
 * load leaves nothing behind. Call `finish()` last: it brings the dimension fields of every
 * touched user up to date. better-sqlite3 is synchronous: each method does its work before it
 * returns, and its promise only says so.
 */
export class SqliteTenantWriter implements TenantWriter {
  private readonly statements: TenantWriterStatements;
  private readonly attributions: AttributionStatements;
  private readonly refreshDimensionValues;
  private readonly records: RecordWriter;
  private readonly dimensionPks = new Map<string, number>();

  constructor(
    db: Db,
    private readonly tenantId: number,
  ) {
    this.statements = tenantWriterStatements(db);
    this.attributions = attributionStatements(db);
    this.refreshDimensionValues = dimensionValuesRefresher(db);
    this.records = new RecordWriter(this.statements, tenantId, changeStamps(db).current(tenantId));
    this.records.metricKeys = this.statements.metricKeys.all(tenantId);
    this.loadDimensions();
  }

  /** The tenant's metric keys, in field order. */
  get metricKeys(): readonly string[] {
    return this.records.metricKeys;
  }

  /** The tenant's dimension keys, in field order. */
  get dimensionKeys(): readonly string[] {
    return [...this.dimensionPks.keys()];
  }

  /** How many reporting records the tenant has, and how many this writer added and updated. */
  get reportingCounts() {
    return this.records.reportingCounts;
  }

  /**
   * Adds the metric and dimension keys not defined yet, after the existing ones. Stored records
   * get a new metric as `null` (in their payment currency) and a new dimension as `[]` or the
   * groups their users hold.
   */
  async defineMetricsAndDimensions(metrics: readonly string[], dimensions: readonly string[]): Promise<void> {
    const { metrics: newMetrics, dimensions: newDimensions } = newCustomKeys(
      { metrics: this.records.metricKeys, dimensions: this.dimensionKeys },
      { metrics, dimensions },
    );
    for (const key of newMetrics) {
      this.statements.insertMetric.run(this.tenantId, key, this.records.metricKeys.length);
      this.statements.addMetricToBodies.run(`,${JSON.stringify(key)}:null,${JSON.stringify(`${key}_currency`)}:`, this.records.stamp, this.tenantId);
      this.records.metricKeys.push(key);
    }
    const position = this.dimensionPks.size;
    newDimensions.forEach((key, index) => this.statements.insertDimension.run(this.tenantId, key, position + index));
    if (newDimensions.length > 0) {
      this.loadDimensions();
      this.refreshDimensionValues(this.tenantId, this.records.stamp);
    }
  }

  async upsertUsers(users: readonly ReportingUser[], origin: Origin = { path: '$.users', first: 0 }): Promise<void> {
    const { userByEmail, userIdentity, upsertUser, rerenderUserInRecords } = this.statements;
    users.forEach((user, index) => {
      const owner = userByEmail.get(this.tenantId, user.email);
      if (owner !== undefined && owner !== user.id) {
        throw emailTaken(origin, index, user.email, owner);
      }
      const json = renderUser(user);
      const stored = userIdentity.get(this.tenantId, user.id);
      const pk = upsertUser.get(this.tenantId, user.id, user.email, json)!;
      // The user object is part of each stored record body: rewrite it there too.
      if (stored && stored[1] !== json) rerenderUserInRecords.run(`"user":${stored[1]}`, `"user":${json}`, this.records.stamp, pk);
      this.records.rememberUser(user, pk, json);
    });
  }

  /** The id of the tenant's user with this e-mail address (without regard to case). */
  async userIdByEmail(email: string): Promise<string | undefined> {
    return this.statements.userByEmail.get(this.tenantId, email);
  }

  /** The tenant's user with this id, as stored. */
  async storedUser(id: string): Promise<ReportingUser | undefined> {
    return this.records.user(id)?.user;
  }

  hasDimension(key: string): boolean {
    return this.dimensionPks.has(key);
  }

  /** Writes group attributions, each overriding the stored ones of its user and dimension in its months. */
  async addGroupAttributions(items: readonly GroupAttributionInput[], origin: Origin = { path: '$.group_attributions', first: 0 }): Promise<void> {
    const a = this.attributions;
    items.forEach((item, index) => {
      const userPk = this.userPk(item.user_id, `${itemPath(origin, index)}.user`);
      const dimensionPk = this.dimensionPks.get(item.dimension);
      if (dimensionPk === undefined) {
        throw unknownDimensionKey(origin, index, item.dimension);
      }
      const period: Period = { start: item.start, end: item.end };
      a.writeGroupPeriods(overrideWrites(applyOverride(a.groupsOverlapping(userPk, dimensionPk, period), period).changed));
      a.insertGroupAttribution(userPk, dimensionPk, a.groupPk(dimensionPk, item.group), period);
      this.records.touchedUsers.add(userPk);
    });
  }

  /** Writes manager attributions, each overriding the stored ones of its user in its months. */
  async addManagerAttributions(items: readonly ManagerAttributionInput[], origin: Origin = { path: '$.manager_attributions', first: 0 }): Promise<void> {
    const a = this.attributions;
    items.forEach((item, index) => {
      const userPk = this.userPk(item.user_id, `${itemPath(origin, index)}.user`);
      const managerPk = this.userPk(item.manager_id, `${itemPath(origin, index)}.manager`);
      if (userPk === managerPk) throw ownManagerError(origin, index);
      const period: Period = { start: item.start, end: item.end };
      a.writeManagerPeriods(overrideWrites(applyOverride(a.managersOverlapping(userPk, period), period).changed));
      a.insertManagerAttribution(userPk, managerPk, period);
    });
  }

  /** The first chain of managers of the tenant that comes back to its start, if any. */
  async managerChain(): Promise<ManagerChain | undefined> {
    const cycle = firstManagerCycle(this.statements.managerEdges.all(this.tenantId));
    return cycle && { emails: cycle.users.map((pk) => this.attributions.emailOfUser(pk)), month: cycle.month };
  }

  /** Upserts reporting records by id: a stored one is updated in place, a new one appended. */
  async upsertReportingRecords(lines: readonly ReportingLineInput[], origin: Origin = { path: '$.reporting', first: 0 }): Promise<void> {
    this.records.upsertReportingRecords(lines, origin);
  }

  /** Creates the data table, or checks that the stored one has these fields (and renames it). */
  async defineDataTable(key: string, name: string, fields: readonly TableField[], path = '$.tables[0]'): Promise<void> {
    this.records.defineDataTable(key, name, fields, path);
  }

  async upsertTableRecords(tableKey: string, records: readonly TableRecordInput[], origin?: Origin): Promise<void> {
    this.records.upsertTableRecords(tableKey, records, origin ?? { path: `$.tables[${JSON.stringify(tableKey)}].records`, first: 0 });
  }

  /** Brings the dimension fields of every user touched by this writer up to date. */
  async finish(): Promise<void> {
    this.refreshDimensionValues(this.tenantId, this.records.stamp, this.records.touchedUsers);
    this.records.touchedUsers.clear();
  }

  private loadDimensions(): void {
    this.dimensionPks.clear();
    for (const [key, pk] of this.statements.dimensions.all(this.tenantId)) this.dimensionPks.set(key, pk);
  }

  private userPk(userId: string, path: string): number {
    const pk = this.records.user(userId)?.pk;
    if (pk === undefined) throw unknownUserId(path, userId);
    return pk;
  }
}
