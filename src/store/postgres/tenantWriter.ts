import { firstManagerCycle } from '../../domain/bulkChecks.js';
import { groupSlot, managerSlot, slotWrites } from '../../domain/bulkPlan.js';
import { asciiLowerCase } from '../../domain/emailKey.js';
import { renderUser, type ReportingUser } from '../../domain/reportingJson.js';
import type { TableField, TableRecordInput } from '../../domain/tableJson.js';
import { emailTaken, newCustomKeys, ownManagerError, unknownDimensionKey, unknownUserId } from '../loadChecks.js';
import {
  itemPath,
  type GroupAttributionInput,
  type ManagerAttributionInput,
  type ManagerChain,
  type Origin,
  type ReportingLineInput,
  type TenantWriter,
} from '../tenantWriting.js';
import { assertStorable, firstRow, rowsOf, run, storable, type Queryable } from './connection.js';
import { groupPks, writeSlots } from './bulkSteps.js';
import { refreshUsers } from './dimensionValues.js';
import { RecordWriter } from './recordWriter.js';
import { writerStatements as s } from './writerStatements.js';

/**
 * Writes one tenant's data on PostgreSQL (see `TenantWriter`), keeping the invariants of
 * migrations.ts: a batch of items costs a few statements, whatever its size. It runs no
 * transaction of its own: `Store.loadTenant` holds one (and the tenant's write lock) around
 * the whole load. Call `finish()` last.
 */
export class PostgresTenantWriter implements TenantWriter {
  private readonly records: RecordWriter;
  private readonly dimensionPks = new Map<string, number>();
  /** E-mail keys looked up since the users last changed. */
  private readonly idsByEmailKey = new Map<string, string | undefined>();

  private constructor(
    private readonly db: Queryable,
    private readonly tenantId: number,
  ) {
    this.records = new RecordWriter(db, tenantId);
  }

  static async open(db: Queryable, tenantId: number): Promise<PostgresTenantWriter> {
    const writer = new PostgresTenantWriter(db, tenantId);
    await writer.records.open();
    writer.records.metricKeys = (await rowsOf(db, s.metricKeys, tenantId)).map((row) => row.key);
    await writer.loadDimensions();
    return writer;
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
      await run(this.db, s.insertMetric, this.tenantId, key, this.records.metricKeys.length);
      await run(this.db, s.addMetricToBodies, this.tenantId, `,${JSON.stringify(key)}:null,${JSON.stringify(`${key}_currency`)}:`, this.records.stamp);
      this.records.metricKeys.push(key);
    }
    const position = this.dimensionPks.size;
    for (const [index, key] of added.dimensions.entries()) await run(this.db, s.insertDimension, this.tenantId, key, position + index);
    if (added.dimensions.length > 0) {
      await this.loadDimensions();
      await refreshUsers(this.db, this.tenantId, this.records.stamp);
    }
  }

  /**
   * Users in order, as if one at a time: an e-mail address (without regard to ASCII case) is
   * refused when another user holds it at that point, counting the users before it in the batch.
   */
  async upsertUsers(users: readonly ReportingUser[], origin: Origin = { path: '$.users', first: 0 }): Promise<void> {
    const keys = users.map((user) => asciiLowerCase(user.email));
    const stored = await rowsOf(this.db, s.usersByIdOrEmail, this.tenantId, users.map((user) => user.id), keys);
    const ownerOf = new Map(stored.map((row) => [row.email_key, row.id]));
    const keyOf = new Map(stored.map((row) => [row.id, row.email_key]));
    const jsonOf = new Map(stored.map((row) => [row.id, row.json]));
    users.forEach((user, index) => {
      assertStorable(user.id, `${itemPath(origin, index)}.id`);
      assertStorable(user.email, `${itemPath(origin, index)}.email`);
      const owner = ownerOf.get(keys[index]!);
      if (owner !== undefined && owner !== user.id) throw emailTaken(origin, index, user.email, owner);
      const previous = keyOf.get(user.id);
      if (previous !== undefined) ownerOf.delete(previous);
      ownerOf.set(keys[index]!, user.id);
      keyOf.set(user.id, keys[index]!);
    });
    const json = users.map(renderUser);
    const written = await rowsOf(this.db, s.upsertUsers, this.tenantId, users.map((user) => user.id), users.map((user) => user.email), json);
    const pkOf = new Map(written.map((row) => [row.id, row.pk]));
    // The user object is part of each stored record body: rewrite it there too.
    const changed: [number[], string[], string[]] = [[], [], []];
    users.forEach((user, index) => {
      const pk = pkOf.get(user.id)!;
      const before = jsonOf.get(user.id);
      if (before !== undefined && before !== json[index]) {
        changed[0].push(pk);
        changed[1].push(`"user":${before}`);
        changed[2].push(`"user":${json[index]}`);
      }
      this.records.rememberUser(user, pk, json[index]!);
    });
    if (changed[0].length > 0) await run(this.db, s.rerenderUsersInRecords, this.tenantId, ...changed, this.records.stamp);
    this.idsByEmailKey.clear();
  }

  async userIdByEmail(email: string): Promise<string | undefined> {
    const key = asciiLowerCase(email);
    if (!storable(key)) return undefined;
    if (!this.idsByEmailKey.has(key)) this.idsByEmailKey.set(key, (await firstRow(this.db, s.userIdByEmailKey, this.tenantId, key))?.id);
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
      assertStorable(item.group, `${itemPath(origin, index)}.group`);
      return { userPk, dimensionPk, group: item.group, start: item.start, end: item.end };
    });
    const groups = await groupPks(this.db, this.tenantId, rows.map((row) => [row.dimensionPk, row.group] as const));
    const stored = await rowsOf(this.db, s.groupRowsOfSlots, this.tenantId, rows.map((row) => row.userPk), rows.map((row) => row.dimensionPk));
    const writes = slotWrites(
      stored.map((row) => ({ key: row.pk, slot: groupSlot(row.user_pk, row.dimension_pk), payload: [row.user_pk, row.dimension_pk, row.group_pk], start: row.start, end: row.end })),
      rows.map((row, i) => ({
        slot: groupSlot(row.userPk, row.dimensionPk),
        payload: [row.userPk, row.dimensionPk, groups[i]!],
        start: row.start,
        end: row.end,
      })),
    );
    await writeSlots(this.db, this.tenantId, writes, { remove: s.deleteGroupRows, update: s.updateGroupRows, insert: s.insertGroupRows });
    for (const row of rows) this.records.touchedUsers.add(row.userPk);
  }

  async addManagerAttributions(items: readonly ManagerAttributionInput[], origin: Origin = { path: '$.manager_attributions', first: 0 }): Promise<void> {
    if (items.length === 0) return;
    await this.records.loadUsers(items.flatMap((item) => [item.user_id, item.manager_id]));
    const rows = items.map((item, index) => {
      const userPk = this.userPk(item.user_id, `${itemPath(origin, index)}.user`);
      const managerPk = this.userPk(item.manager_id, `${itemPath(origin, index)}.manager`);
      if (userPk === managerPk) throw ownManagerError(origin, index);
      return { slot: managerSlot(userPk), payload: [userPk, managerPk], start: item.start, end: item.end };
    });
    const stored = await rowsOf(this.db, s.managerRowsOfUsers, this.tenantId, rows.map((row) => row.payload[0]!));
    const writes = slotWrites(
      stored.map((row) => ({ key: row.pk, slot: managerSlot(row.user), payload: [row.user, row.manager], start: row.start, end: row.end })),
      rows,
    );
    await writeSlots(this.db, this.tenantId, writes, { remove: s.deleteManagerRows, update: s.updateManagerRows, insert: s.insertManagerRows });
  }

  async managerChain(): Promise<ManagerChain | undefined> {
    const cycle = firstManagerCycle(await rowsOf(this.db, s.managerEdges, this.tenantId));
    if (!cycle) return undefined;
    const emails = new Map((await rowsOf(this.db, s.emailsOfUsers, this.tenantId, cycle.users)).map((row) => [row.pk, row.email]));
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

  async finish(): Promise<void> {
    await refreshUsers(this.db, this.tenantId, this.records.stamp, this.records.touchedUsers);
    this.records.touchedUsers.clear();
  }

  private async loadDimensions(): Promise<void> {
    this.dimensionPks.clear();
    for (const row of await rowsOf(this.db, s.dimensions, this.tenantId)) this.dimensionPks.set(row.key, row.pk);
  }

  private userPk(userId: string, path: string): number {
    const pk = this.records.cachedUser(userId)?.pk;
    if (pk === undefined) throw unknownUserId(path, userId);
    return pk;
  }
}
