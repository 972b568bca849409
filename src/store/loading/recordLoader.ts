import { RecordPlacement } from '../../domain/recordPlacement.js';
import type { ReportingUser } from '../../domain/reportingJson.js';
import type { TableField, TableRecordInput } from '../../domain/tableJson.js';
import { assertSameFields, assertValidFields, duplicateId, fieldsJsonOf, renderedLine, renderedTableRecord, unknownTable, unknownUserId, type TextCheck } from './loadChecks.js';
import { UserMonthsSeen, type KnownUser, type OpenTable } from './loadState.js';
import { itemPath, type Origin, type ReportingLineInput } from '../vocabulary/tenantWriter.js';
import type { LoadSteps } from '../engine/loadSteps.js';

/** A batch checked and rendered up to its first problem, which is thrown once what comes before it is known. */
interface Prepared<T> {
  items: T[];
  problem?: Error;
}

/**
 * The record half of {@link TenantLoader}: reporting records and table records, upserted by id
 * with dense positions (see `RecordPlacement`), a batch at a time in a few steps, and the
 * cache of the tenant's users they refer to. Every record's (user, month) gets its dimension
 * fields row. Problems are found in item order: the items before the first problem of a batch
 * are placed first, since one of them may be an id given twice.
 */
export class RecordLoader {
  readonly touchedUsers = new Set<number>();
  private readonly users = new Map<string, KnownUser | null>();
  private readonly tables = new Map<string, OpenTable>();
  private readonly reporting: RecordPlacement;
  private readonly userMonthsWithRow = new UserMonthsSeen();
  private added = 0;
  private updated = 0;

  constructor(
    private readonly steps: LoadSteps,
    /** The stamp of the load's changes. */
    readonly stamp: number,
    private readonly checkText: TextCheck,
    recordCount: number,
    /** The tenant's metric keys, in field order (a load may add some). */
    readonly metricKeys: string[],
  ) {
    this.reporting = new RecordPlacement(recordCount);
  }

  get reportingCounts(): { total: number; added: number; updated: number } {
    return { total: this.reporting.count, added: this.added, updated: this.updated };
  }

  /** The tenant's user with this id (cached), or `undefined`. */
  async user(id: string): Promise<KnownUser | undefined> {
    await this.loadUsers([id]);
    return this.users.get(id) ?? undefined;
  }

  /** Reads the users of `ids` not cached yet, in one step. */
  async loadUsers(ids: Iterable<string>): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => !this.users.has(id));
    if (missing.length === 0) return;
    for (const id of missing) this.users.set(id, null);
    for (const row of await this.steps.usersById(missing)) {
      this.users.set(row.id, { pk: row.pk, json: row.json, user: JSON.parse(row.json) as ReportingUser });
    }
  }

  /** A cached user (`loadUsers` first). */
  cachedUser(id: string): KnownUser | undefined {
    return this.users.get(id) ?? undefined;
  }

  rememberUser(user: ReportingUser, pk: number, json: string): void {
    this.users.set(user.id, { pk, json, user });
  }

  async upsertReportingRecords(lines: readonly ReportingLineInput[], origin: Origin): Promise<void> {
    await this.loadUsers(lines.map((line) => line.user_id));
    const prepared: Prepared<{ line: ReportingLineInput; user: KnownUser; month: number; body: string; bodyV2: string }> = { items: [] };
    try {
      for (const [index, line] of lines.entries()) {
        const user = this.cachedUser(line.user_id);
        if (!user) throw unknownUserId(`${itemPath(origin, index)}.user.id`, line.user_id);
        this.checkText(line.id, `${itemPath(origin, index)}.id`);
        prepared.items.push({ line, user, ...renderedLine(line, user, this.metricKeys, origin, index) });
      }
    } catch (error) {
      prepared.problem = error as Error;
    }
    const { items } = prepared;
    const stored = await this.positions(this.reporting, items.map(({ line }) => line.id), (ids) => this.steps.recordPositions(ids));
    const inserts: { pos: number; id: string; userPk: number; month: number; body: string; bodyV2: string }[] = [];
    const updates: { pos: number; userPk: number; month: number; body: string; bodyV2: string }[] = [];
    for (const [index, { line, user, month, body, bodyV2 }] of items.entries()) {
      const placement = this.reporting.place(stored.get(line.id));
      if (placement === 'duplicate') throw duplicateId(origin, index, line.id);
      if (placement.isNew) inserts.push({ pos: placement.pos, id: line.id, userPk: user.pk, month, body, bodyV2 });
      else updates.push({ pos: placement.pos, userPk: user.pk, month, body, bodyV2 });
    }
    if (inserts.length > 0) {
      const inserted = await this.steps.insertRecords(inserts, this.stamp);
      this.assertInsertedOnce(inserts.map((row) => row.id), inserted, items.map(({ line }) => line.id), origin);
    }
    if (updates.length > 0) await this.steps.updateRecords(updates, this.stamp);
    this.added += inserts.length;
    this.updated += updates.length;
    await this.ensureFieldRows(items.map(({ user, month }) => [user.pk, month]));
    if (prepared.problem) throw prepared.problem;
  }

  async defineDataTable(key: string, name: string, fields: readonly TableField[], path: string): Promise<void> {
    this.checkText(key, `${path}.key`);
    this.checkText(name, `${path}.name`);
    const fieldsJson = fieldsJsonOf(fields);
    const stored = await this.steps.table(key);
    let pk: number;
    if (stored) {
      assertSameFields(path, key, stored.fields, fieldsJson);
      if (stored.name !== name) await this.steps.renameTable(stored.pk, name);
      pk = stored.pk;
    } else {
      assertValidFields(fields, path);
      pk = await this.steps.insertTable(key, name, fieldsJson);
    }
    this.tables.set(key, {
      pk,
      fields: JSON.parse(fieldsJson) as TableField[],
      userFields: fields.filter((field) => field.type === 'user').map((field) => field.key),
      placement: new RecordPlacement(await this.steps.tableRecordCount(pk)),
    });
  }

  async upsertTableRecords(tableKey: string, records: readonly TableRecordInput[], origin: Origin): Promise<void> {
    const table = this.tables.get(tableKey) ?? (await this.openStoredTable(tableKey, origin.path));
    await this.loadUsers(records.flatMap((record) => table.userFields.map((key) => record[key]).filter((id): id is string => typeof id === 'string')));
    const userIds = { fields: table.userFields, isUser: (id: string) => this.cachedUser(id) !== undefined };
    const prepared: Prepared<{ id: string; body: string; bodyV2: string }> = { items: [] };
    try {
      for (const [index, record] of records.entries()) {
        const bodies = renderedTableRecord(table.fields, record, userIds, origin, index);
        this.checkText(record.id, `${itemPath(origin, index)}.id`);
        prepared.items.push({ id: record.id, ...bodies });
      }
    } catch (error) {
      prepared.problem = error as Error;
    }
    const { items } = prepared;
    const stored = await this.positions(table.placement, items.map(({ id }) => id), (ids) => this.steps.tableRecordPositions(table.pk, ids));
    const inserts: { pos: number; id: string; body: string; bodyV2: string }[] = [];
    const updates: { pos: number; body: string; bodyV2: string }[] = [];
    for (const [index, { id, body, bodyV2 }] of items.entries()) {
      const placement = table.placement.place(stored.get(id));
      if (placement === 'duplicate') throw duplicateId(origin, index, id);
      if (placement.isNew) inserts.push({ pos: placement.pos, id, body, bodyV2 });
      else updates.push({ pos: placement.pos, body, bodyV2 });
    }
    if (inserts.length > 0) {
      const inserted = await this.steps.insertTableRecords(table.pk, inserts, this.stamp);
      this.assertInsertedOnce(inserts.map((row) => row.id), inserted, items.map(({ id }) => id), origin);
    }
    if (updates.length > 0) await this.steps.updateTableRecords(table.pk, updates, this.stamp);
    if (prepared.problem) throw prepared.problem;
  }

  /** A table written by an earlier load (when `defineDataTable` was not called by this one). */
  private async openStoredTable(tableKey: string, path: string): Promise<OpenTable> {
    const stored = await this.steps.table(tableKey);
    if (!stored) throw unknownTable(path, tableKey);
    await this.defineDataTable(tableKey, stored.name, JSON.parse(stored.fields) as TableField[], path);
    return this.tables.get(tableKey)!;
  }

  /** The stored positions of `ids` (none are looked up while nothing was stored when the load began). */
  private async positions(
    placement: RecordPlacement,
    ids: string[],
    read: (ids: string[]) => Promise<{ id: string; pos: number }[]> | { id: string; pos: number }[],
  ): Promise<Map<string, number>> {
    if (!placement.needsLookup || ids.length === 0) return new Map();
    return new Map((await read(ids)).map((row) => [row.id, row.pos]));
  }

  /**
   * New ids the database skipped were stored already: added earlier in this load, or twice in
   * this batch. The first item whose id was not inserted for it is the one given twice.
   */
  private assertInsertedOnce(newIds: readonly string[], inserted: readonly string[], batchIds: readonly string[], origin: Origin): void {
    if (inserted.length === newIds.length) return;
    const unclaimed = new Set(inserted);
    const isNew = new Set(newIds);
    for (const [index, id] of batchIds.entries()) {
      if (!isNew.has(id)) continue;
      if (!unclaimed.delete(id)) throw duplicateId(origin, index, id);
    }
  }

  private async ensureFieldRows(userMonths: readonly [number, number][]): Promise<void> {
    const missing: { userPk: number; month: number }[] = [];
    for (const [userPk, month] of userMonths) {
      if (!this.userMonthsWithRow.add(userPk, month)) continue;
      missing.push({ userPk, month });
      this.touchedUsers.add(userPk);
    }
    if (missing.length > 0) await this.steps.ensureFieldRows(missing, this.stamp);
  }
}
