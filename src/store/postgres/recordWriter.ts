import { RecordPlacement } from '../../domain/recordPlacement.js';
import type { ReportingUser } from '../../domain/reportingJson.js';
import type { TableField, TableRecordInput } from '../../domain/tableJson.js';
import {
  assertSameFields,
  assertValidFields,
  duplicateId,
  fieldsJsonOf,
  renderedLine,
  renderedTableRecord,
  unknownTable,
  unknownUserId,
} from '../loadChecks.js';
import { UserMonthsSeen, type KnownUser, type OpenTable } from '../loadState.js';
import { itemPath, type Origin, type ReportingLineInput } from '../tenantWriting.js';
import { changeStamps } from './changeStamps.js';
import { assertStorable, firstRow, rowsOf, run, storable, type Queryable } from './connection.js';
import { writerStatements as s } from './writerStatements.js';


/** A batch checked and rendered up to its first problem, which is thrown once what comes before it is known. */
interface Prepared<T> {
  items: T[];
  problem?: Error;
}

/**
 * The record half of the PostgreSQL tenant writer: reporting records and table records, upserted
 * by id with dense positions (see `RecordPlacement`), a batch at a time in a few statements, and
 * the cache of the tenant's users they refer to. Every record's (user, month) gets its
 * `dimension_values` row. Problems are found in item order: the items before the first problem
 * of a batch are placed first, since one of them may be an id given twice.
 */
export class RecordWriter {
  metricKeys: string[] = [];
  readonly touchedUsers = new Set<number>();
  private readonly users = new Map<string, KnownUser | null>();
  private readonly tables = new Map<string, OpenTable>();
  private reporting = new RecordPlacement(0);
  /** The stamp of the load's changes (changeStamps.ts). */
  stamp = 0;
  private readonly userMonthsWithRow = new UserMonthsSeen();
  private added = 0;
  private updated = 0;

  constructor(
    private readonly db: Queryable,
    private readonly tenantId: number,
  ) {}

  async open(): Promise<void> {
    this.reporting = new RecordPlacement((await firstRow(this.db, s.recordCount, this.tenantId))!.count);
    this.stamp = await changeStamps.current(this.db, this.tenantId);
  }

  get reportingCounts(): { total: number; added: number; updated: number } {
    return { total: this.reporting.count, added: this.added, updated: this.updated };
  }

  /** The tenant's user with this id (cached), or `undefined`. */
  async user(id: string): Promise<KnownUser | undefined> {
    await this.loadUsers([id]);
    return this.users.get(id) ?? undefined;
  }

  /** Reads the users of `ids` not cached yet, in one statement. */
  async loadUsers(ids: Iterable<string>): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => !this.users.has(id));
    if (missing.length === 0) return;
    for (const id of missing) this.users.set(id, null);
    for (const row of await rowsOf(this.db, s.usersById, this.tenantId, missing.filter(storable))) {
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
    const prepared: Prepared<{ line: ReportingLineInput; user: KnownUser; month: number; body: string }> = { items: [] };
    try {
      for (const [index, line] of lines.entries()) {
        const user = this.cachedUser(line.user_id);
        if (!user) throw unknownUserId(`${itemPath(origin, index)}.user.id`, line.user_id);
        assertStorable(line.id, `${itemPath(origin, index)}.id`);
        prepared.items.push({ line, user, ...renderedLine(line, user.json, this.metricKeys, origin, index) });
      }
    } catch (error) {
      prepared.problem = error as Error;
    }
    const { items } = prepared;
    const stored = await this.positions(this.reporting, items.map(({ line }) => line.id), (ids) => rowsOf(this.db, s.recordPositions, this.tenantId, ids));
    const inserts = { pos: [] as number[], id: [] as string[], userPk: [] as number[], month: [] as number[], body: [] as string[] };
    const updates = { pos: [] as number[], userPk: [] as number[], month: [] as number[], body: [] as string[] };
    for (const [index, { line, user, month, body }] of items.entries()) {
      const placement = this.reporting.place(stored.get(line.id));
      if (placement === 'duplicate') throw duplicateId(origin, index, line.id);
      const columns = placement.isNew ? inserts : updates;
      columns.pos.push(placement.pos);
      columns.userPk.push(user.pk);
      columns.month.push(month);
      columns.body.push(body);
      if (placement.isNew) inserts.id.push(line.id);
    }
    if (inserts.pos.length > 0) {
      const inserted = await rowsOf(this.db, s.insertRecords, this.tenantId, inserts.pos, inserts.id, inserts.userPk, inserts.month, inserts.body, this.stamp);
      this.assertInsertedOnce(inserts.id, inserted, items.map(({ line }) => line.id), origin);
    }
    if (updates.pos.length > 0) await run(this.db, s.updateRecords, this.tenantId, updates.pos, updates.userPk, updates.month, updates.body, this.stamp);
    this.added += inserts.pos.length;
    this.updated += updates.pos.length;
    await this.ensureDimensionValues(items.map(({ user, month }) => [user.pk, month]));
    if (prepared.problem) throw prepared.problem;
  }

  async defineDataTable(key: string, name: string, fields: readonly TableField[], path: string): Promise<void> {
    assertStorable(key, `${path}.key`);
    assertStorable(name, `${path}.name`);
    const fieldsJson = fieldsJsonOf(fields);
    const stored = await firstRow(this.db, s.table, this.tenantId, key);
    let pk: number;
    if (stored) {
      assertSameFields(path, key, stored.fields, fieldsJson);
      if (stored.name !== name) await run(this.db, s.renameTable, this.tenantId, name, stored.pk);
      pk = stored.pk;
    } else {
      assertValidFields(fields, path);
      pk = (await firstRow(this.db, s.insertTable, this.tenantId, key, name, fieldsJson))!.pk;
    }
    this.tables.set(key, {
      pk,
      fields: JSON.parse(fieldsJson) as TableField[],
      userFields: fields.filter((field) => field.type === 'user').map((field) => field.key),
      placement: new RecordPlacement((await firstRow(this.db, s.tableRecordCount, this.tenantId, pk))!.count),
    });
  }

  async upsertTableRecords(tableKey: string, records: readonly TableRecordInput[], origin: Origin): Promise<void> {
    const table = this.tables.get(tableKey) ?? (await this.openStoredTable(tableKey, origin.path));
    await this.loadUsers(records.flatMap((record) => table.userFields.map((key) => record[key]).filter((id): id is string => typeof id === 'string')));
    const userIds = { fields: table.userFields, isUser: (id: string) => this.cachedUser(id) !== undefined };
    const prepared: Prepared<{ id: string; body: string }> = { items: [] };
    try {
      for (const [index, record] of records.entries()) {
        const body = renderedTableRecord(table.fields, record, userIds, origin, index);
        assertStorable(record.id, `${itemPath(origin, index)}.id`);
        prepared.items.push({ id: record.id, body });
      }
    } catch (error) {
      prepared.problem = error as Error;
    }
    const { items } = prepared;
    const stored = await this.positions(table.placement, items.map(({ id }) => id), (ids) => rowsOf(this.db, s.tableRecordPositions, this.tenantId, table.pk, ids));
    const inserts = { pos: [] as number[], id: [] as string[], body: [] as string[] };
    const updates = { pos: [] as number[], body: [] as string[] };
    for (const [index, { id, body }] of items.entries()) {
      const placement = table.placement.place(stored.get(id));
      if (placement === 'duplicate') throw duplicateId(origin, index, id);
      const columns = placement.isNew ? inserts : updates;
      columns.pos.push(placement.pos);
      columns.body.push(body);
      if (placement.isNew) inserts.id.push(id);
    }
    if (inserts.pos.length > 0) {
      const inserted = await rowsOf(this.db, s.insertTableRecords, this.tenantId, table.pk, inserts.pos, inserts.id, inserts.body, this.stamp);
      this.assertInsertedOnce(inserts.id, inserted, items.map(({ id }) => id), origin);
    }
    if (updates.pos.length > 0) await run(this.db, s.updateTableRecords, this.tenantId, table.pk, updates.pos, updates.body, this.stamp);
    if (prepared.problem) throw prepared.problem;
  }

  /** A table written by an earlier load (when `defineDataTable` was not called by this one). */
  private async openStoredTable(tableKey: string, path: string): Promise<OpenTable> {
    const stored = await firstRow(this.db, s.table, this.tenantId, tableKey);
    if (!stored) throw unknownTable(path, tableKey);
    await this.defineDataTable(tableKey, stored.name, JSON.parse(stored.fields) as TableField[], path);
    return this.tables.get(tableKey)!;
  }

  /** The stored positions of `ids` (none are looked up while nothing was stored when the load began). */
  private async positions(
    placement: RecordPlacement,
    ids: string[],
    read: (ids: string[]) => Promise<{ id: string; pos: number }[]>,
  ): Promise<Map<string, number>> {
    if (!placement.needsLookup || ids.length === 0) return new Map();
    return new Map((await read(ids)).map((row) => [row.id, row.pos]));
  }

  /**
   * New ids the database skipped were stored already: added earlier in this load, or twice in
   * this batch. The first item whose id was not inserted for it is the one given twice.
   */
  private assertInsertedOnce(newIds: readonly string[], inserted: readonly { id: string }[], batchIds: readonly string[], origin: Origin): void {
    if (inserted.length === newIds.length) return;
    const unclaimed = new Set(inserted.map((row) => row.id));
    const isNew = new Set(newIds);
    for (const [index, id] of batchIds.entries()) {
      if (!isNew.has(id)) continue;
      if (!unclaimed.delete(id)) throw duplicateId(origin, index, id);
    }
  }

  private async ensureDimensionValues(userMonths: readonly [number, number][]): Promise<void> {
    const missing: [number[], number[]] = [[], []];
    for (const [pk, month] of userMonths) {
      if (!this.userMonthsWithRow.add(pk, month)) continue;
      missing[0].push(pk);
      missing[1].push(month);
      this.touchedUsers.add(pk);
    }
    if (missing[0].length > 0) await run(this.db, s.ensureDimensionValues, this.tenantId, ...missing, this.stamp);
  }
}
