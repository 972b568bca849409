import { firstManagerCycle } from '../../domain/bulkChecks.js';
import { groupSlot, managerSlot, slotWrites } from '../../domain/bulkPlan.js';
import { asciiLowerCase } from '../../domain/emailKey.js';
import { DatasetError } from '../../domain/datasetError.js';
import { formatMonth, parseMonth } from '../../domain/months.js';
import { monthOfTime } from '../../domain/statements.js';
import { sortedAttributes } from '../../domain/userItems.js';
import { renderUser, type ReportingUser } from '../../domain/reportingJson.js';
import type { TableField, TableRecordInput } from '../../domain/tableJson.js';
import { newMetricV2Prefix } from '../../domain/v2Json.js';
import { emailTaken, newCustomKeys, ownManagerError, unknownDimensionKey, unknownUserId, type TextCheck } from './loadChecks.js';
import { itemPath, type GroupAttributionInput, type ManagerAttributionInput, type ManagerChain, type Origin, type ReportingLineInput, type StatementStatusInput, type TenantWriter, type UserInput } from '../vocabulary/tenantWriter.js';
import { refreshDimensionFields } from './dimensionFields.js';
import { userInRecords } from '../writes/userBulk.js';
import type { LoadSteps, StatementStatusRow } from '../engine/loadSteps.js';
import type { UserRerender } from '../engine/commonWriteSteps.js';
import { RecordLoader } from './recordLoader.js';

/**
 * Writes one tenant's data on any engine (see `TenantWriter`), over the engine's set-wise
 * steps: a batch of items costs a few steps, whatever its size. Attributions override the
 * stored ones of their slot with the rule of the bulk upsert (`slotWrites`). It runs no
 * transaction of its own: `Store.loadTenant` holds one (and the tenant's write lock) around
 * the whole load. Call `finish()` last.
 */
export class TenantLoader implements TenantWriter {
  private readonly dimensionPks = new Map<string, number>();
  /** E-mail keys looked up since the users last changed. */
  private readonly idsByEmailKey = new Map<string, string | undefined>();
  /** The statuses of statements given, by user and month, written by `finish()`. */
  private readonly statuses = new Map<string, { row: StatementStatusRow; path: string; name: string }>();

  private constructor(
    private readonly steps: LoadSteps,
    private readonly records: RecordLoader,
    private readonly checkText: TextCheck,
  ) {}

  /** `stamp`: of the load's changes; `checkText` refuses text the engine cannot store. */
  static async open(steps: LoadSteps, stamp: number, checkText: TextCheck): Promise<TenantLoader> {
    const records = new RecordLoader(steps, stamp, checkText, await steps.recordCount(), await steps.metricKeys());
    const loader = new TenantLoader(steps, records, checkText);
    await loader.loadDimensions();
    return loader;
  }

  get metricKeys(): readonly string[] {
    return this.records.metricKeys;
  }

  get dimensionKeys(): readonly string[] {
    return [...this.dimensionPks.keys()];
  }

  get reportingCounts() {
    return this.records.reportingCounts;
  }

  async defineMetricsAndDimensions(metrics: readonly string[], dimensions: readonly string[]): Promise<void> {
    const added = newCustomKeys({ metrics: this.records.metricKeys, dimensions: this.dimensionKeys }, { metrics, dimensions });
    for (const key of added.metrics) {
      await this.steps.insertMetric(key, this.records.metricKeys.length);
      await this.steps.addMetricToBodies(`,${JSON.stringify(key)}:null,${JSON.stringify(`${key}_currency`)}:`, newMetricV2Prefix(key), this.records.stamp);
      this.records.metricKeys.push(key);
    }
    const position = this.dimensionPks.size;
    for (const [index, key] of added.dimensions.entries()) await this.steps.insertDimension(key, position + index);
    if (added.dimensions.length > 0) {
      await this.loadDimensions();
      await refreshDimensionFields(this.steps, this.records.stamp);
    }
  }

  /**
   * Users in order, as if one at a time: an e-mail address (without regard to ASCII case) is
   * refused when another user holds it at that point, counting the users before it in the batch.
   */
  async upsertUsers(users: readonly UserInput[], origin: Origin = { path: '$.users', first: 0 }): Promise<void> {
    const keys = users.map((user) => asciiLowerCase(user.email));
    const stored = await this.steps.usersByIdOrEmail(users.map((user) => user.id), keys);
    const ownerOf = new Map(stored.map((row) => [row.emailKey, row.id]));
    const keyOf = new Map(stored.map((row) => [row.id, row.emailKey]));
    const jsonOf = new Map(stored.map((row) => [row.id, row.json]));
    users.forEach((user, index) => {
      this.checkText(user.id, `${itemPath(origin, index)}.id`);
      this.checkText(user.email, `${itemPath(origin, index)}.email`);
      const owner = ownerOf.get(keys[index]!);
      if (owner !== undefined && owner !== user.id) throw emailTaken(origin, index, user.email, owner);
      const previous = keyOf.get(user.id);
      if (previous !== undefined) ownerOf.delete(previous);
      ownerOf.set(keys[index]!, user.id);
      keyOf.set(user.id, keys[index]!);
    });
    const json = users.map(renderUser);
    const written = await this.steps.upsertUsers(users.map((user, index) => ({ id: user.id, email: user.email, json: json[index]! })));
    const pkOf = new Map(written.map((row) => [row.id, row.pk]));
    // The user object is part of each stored record body: rewrite it there too.
    const changed: UserRerender[] = [];
    users.forEach((user, index) => {
      const pk = pkOf.get(user.id)!;
      const before = jsonOf.get(user.id);
      if (before !== undefined && before !== json[index]) changed.push(userInRecords(pk, before, json[index]!));
      this.records.rememberUser(user, pk, json[index]!);
    });
    if (changed.length > 0) await this.steps.rerenderUsersInRecords(changed, this.records.stamp);
    const extras = users.filter((user) => user.attributes !== undefined || user.archived_after !== undefined);
    if (extras.length > 0) await this.steps.setUserExtras(extras.map((user) => userExtras(pkOf.get(user.id)!, user)));
    this.idsByEmailKey.clear();
  }

  async userIdByEmail(email: string): Promise<string | undefined> {
    const key = asciiLowerCase(email);
    if (!this.idsByEmailKey.has(key)) this.idsByEmailKey.set(key, await this.steps.userIdByEmail(email));
    return this.idsByEmailKey.get(key);
  }

  async storedUser(id: string): Promise<ReportingUser | undefined> {
    return (await this.records.user(id))?.user;
  }

  hasDimension(key: string): boolean {
    return this.dimensionPks.has(key);
  }

  async addGroupAttributions(items: readonly GroupAttributionInput[], origin: Origin = { path: '$.group_attributions', first: 0 }): Promise<void> {
    if (items.length === 0) return;
    await this.records.loadUsers(items.map((item) => item.user_id));
    const rows = items.map((item, index) => {
      const userPk = this.userPk(item.user_id, `${itemPath(origin, index)}.user`);
      const dimensionPk = this.dimensionPks.get(item.dimension);
      if (dimensionPk === undefined) throw unknownDimensionKey(origin, index, item.dimension);
      this.checkText(item.group, `${itemPath(origin, index)}.group`);
      return { userPk, dimensionPk, group: item.group, period: { start: item.start, end: item.end } };
    });
    const groups = await this.steps.groupPks(rows.map((row) => [row.dimensionPk, row.group] as const));
    const stored = await this.steps.storedGroups(rows);
    const incoming = rows.map((row, i) => ({
      slot: groupSlot(row.userPk, row.dimensionPk),
      payload: [row.userPk, row.dimensionPk, groups[i]!],
      ...row.period,
    }));
    await this.steps.writeGroups(slotWrites(stored, incoming));
    for (const row of rows) this.records.touchedUsers.add(row.userPk);
  }

  async addManagerAttributions(items: readonly ManagerAttributionInput[], origin: Origin = { path: '$.manager_attributions', first: 0 }): Promise<void> {
    if (items.length === 0) return;
    await this.records.loadUsers(items.flatMap((item) => [item.user_id, item.manager_id]));
    const rows = items.map((item, index) => {
      const userPk = this.userPk(item.user_id, `${itemPath(origin, index)}.user`);
      const managerPk = this.userPk(item.manager_id, `${itemPath(origin, index)}.manager`);
      if (userPk === managerPk) throw ownManagerError(origin, index);
      return { userPk, managerPk, period: { start: item.start, end: item.end } };
    });
    const stored = await this.steps.storedManagers(rows);
    const incoming = rows.map((row) => ({ slot: managerSlot(row.userPk), payload: [row.userPk, row.managerPk], ...row.period }));
    await this.steps.writeManagers(slotWrites(stored, incoming));
  }

  async managerChain(): Promise<ManagerChain | undefined> {
    const cycle = firstManagerCycle(await this.steps.managerEdges());
    if (!cycle) return undefined;
    const emails = await this.steps.emails(cycle.users);
    return { emails: cycle.users.map((pk) => emails.get(pk)!), month: cycle.month };
  }

  upsertReportingRecords(lines: readonly ReportingLineInput[], origin: Origin = { path: '$.reporting', first: 0 }): Promise<void> {
    return this.records.upsertReportingRecords(lines, origin);
  }

  defineDataTable(key: string, name: string, fields: readonly TableField[], path = '$.tables[0]'): Promise<void> {
    return this.records.defineDataTable(key, name, fields, path);
  }

  upsertTableRecords(tableKey: string, records: readonly TableRecordInput[], origin?: Origin): Promise<void> {
    return this.records.upsertTableRecords(tableKey, records, origin ?? { path: `$.tables[${JSON.stringify(tableKey)}].records`, first: 0 });
  }

  async setStatementStatuses(items: readonly StatementStatusInput[], origin: Origin = { path: '$.statements', first: 0 }): Promise<void> {
    await this.records.loadUsers(items.map((item) => item.user_id));
    for (const [index, item] of items.entries()) {
      const path = itemPath(origin, index);
      const userPk = this.userPk(item.user_id, `${path}.user`);
      const key = `${userPk} ${item.month}`;
      const name = `the statement of user ${this.records.cachedUser(item.user_id)!.user.email} in ${formatMonth(item.month)}`;
      if (this.statuses.has(key)) throw new DatasetError(path, `${name} is given twice`);
      this.statuses.set(key, { row: { userPk, month: item.month, status: item.status }, path, name });
    }
  }

  async finish(): Promise<void> {
    await refreshDimensionFields(this.steps, this.records.stamp, this.records.touchedUsers);
    this.records.touchedUsers.clear();
    await this.finishStatements();
  }

  /** Statements follow their lines (docs/rules.md#statements) after any load that wrote lines; then the statuses given. */
  private async finishStatements(): Promise<void> {
    const { added, updated } = this.records.reportingCounts;
    if (added + updated === 0 && this.statuses.size === 0) return;
    await this.steps.refreshStatements(this.records.stamp, monthOfTime(new Date()));
    const given = [...this.statuses.values()];
    this.statuses.clear();
    if (given.length === 0) return;
    const missing = await this.steps.setStatementStatuses(given.map((item) => item.row), this.records.stamp);
    if (missing.length > 0) {
      const { path, name } = given[missing[0]!]!;
      throw new DatasetError(path, `${name} has no reporting record: a statement is made of its lines (docs/rules.md#statements)`);
    }
  }

  private async loadDimensions(): Promise<void> {
    this.dimensionPks.clear();
    for (const [key, pk] of await this.steps.dimensions()) this.dimensionPks.set(key, pk);
  }

  private userPk(userId: string, path: string): number {
    const pk = this.records.cachedUser(userId)?.pk;
    if (pk === undefined) throw unknownUserId(path, userId);
    return pk;
  }
}

/** What a dataset's user sets besides its user object: its attributes as stored (by key) and its last month; `null` where not given. */
function userExtras(pk: number, user: UserInput): { pk: number; attributes: string | null; archivedAfter: number | null } {
  const attributes = user.attributes === undefined ? null : JSON.stringify(sortedAttributes(user.attributes));
  return { pk, attributes, archivedAfter: user.archived_after === undefined ? null : parseMonth(user.archived_after)! };
}
