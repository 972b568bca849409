import { RecordPlacement, type Placement } from '../../domain/recordPlacement.js';
import type { ReportingUser, StatementLine } from '../../domain/reportingJson.js';
import type { TableField, TableRecordInput } from '../../domain/tableJson.js';
import { assertSameFields, assertValidFields, duplicateId, fieldsJsonOf, renderedLine, renderedTableRecord, unknownTable, unknownUserId } from '../loadChecks.js';
import { UserMonthsSeen, type KnownUser, type OpenTable } from '../loadState.js';
import { itemPath, type Origin } from '../tenantWriting.js';
import { isUniqueViolation, type TenantWriterStatements } from './tenantWriterStatements.js';



/**
 * The record half of a {@link TenantWriter}: reporting records and table records, upserted by
 * id with dense positions (see `RecordPlacement`), and the cache of the tenant's users they
 * refer to. Every record's (user, month) gets its `dimension_values` row.
 */
export class RecordWriter {
  metricKeys: string[] = [];
  readonly touchedUsers = new Set<number>();
  private readonly users = new Map<string, KnownUser | null>();
  private readonly tables = new Map<string, OpenTable>();
  private readonly reporting: RecordPlacement;
  private readonly userMonthsWithRow = new UserMonthsSeen();
  private added = 0;
  private updated = 0;

  constructor(
    private readonly statements: TenantWriterStatements,
    private readonly tenantId: number,
    /** The stamp of the load's changes (changeStamps.ts). */
    readonly stamp: number,
  ) {
    this.reporting = new RecordPlacement(statements.recordCount.get(tenantId)!);
  }

  get reportingCounts(): { total: number; added: number; updated: number } {
    return { total: this.reporting.count, added: this.added, updated: this.updated };
  }

  /** The tenant's user with this id (cached), or `undefined`. */
  user(id: string): KnownUser | undefined {
    let known = this.users.get(id);
    if (known === undefined) {
      const row = this.statements.userIdentity.get(this.tenantId, id);
      known = row ? { pk: row[0], json: row[1], user: JSON.parse(row[1]) as ReportingUser } : null;
      this.users.set(id, known);
    }
    return known ?? undefined;
  }

  rememberUser(user: ReportingUser, pk: number, json: string): void {
    this.users.set(user.id, { pk, json, user });
  }

  upsertReportingRecords(lines: readonly (StatementLine & { user_id: string })[], origin: Origin): void {
    const { recordPos, insertRecord, updateRecord, ensureDimensionValue } = this.statements;
    for (let index = 0; index < lines.length; index += 1) {
      const line = lines[index]!;
      const user = this.user(line.user_id);
      if (!user) throw unknownUserId(`${itemPath(origin, index)}.user.id`, line.user_id);
      const { month, body } = renderedLine(line, user.json, this.metricKeys, origin, index);
      const stored = this.reporting.needsLookup ? recordPos.get(this.tenantId, line.id) : undefined;
      const placement = this.checked(this.reporting.place(stored), origin, index, line.id);
      if (placement.isNew) {
        this.insertOnce(() => insertRecord.run(this.tenantId, placement.pos, line.id, user.pk, month, body, this.stamp), origin, index, line.id);
        this.added += 1;
      } else {
        updateRecord.run({ userPk: user.pk, month, body, stamp: this.stamp, tenantId: this.tenantId, pos: placement.pos });
        this.updated += 1;
      }
      if (this.userMonthsWithRow.add(user.pk, month)) {
        ensureDimensionValue.run(this.tenantId, user.pk, month, this.stamp);
        this.touchedUsers.add(user.pk);
      }
    }
  }

  defineDataTable(key: string, name: string, fields: readonly TableField[], path: string): void {
    const fieldsJson = fieldsJsonOf(fields);
    const stored = this.statements.table.get(this.tenantId, key);
    let pk: number;
    if (stored) {
      assertSameFields(path, key, stored.fields, fieldsJson);
      if (stored.name !== name) this.statements.renameTable.run(name, stored.pk);
      pk = stored.pk;
    } else {
      assertValidFields(fields, path);
      pk = this.statements.insertTable.get(this.tenantId, key, name, fieldsJson)!;
    }
    this.tables.set(key, {
      pk,
      fields: JSON.parse(fieldsJson) as TableField[],
      userFields: fields.filter((field) => field.type === 'user').map((field) => field.key),
      placement: new RecordPlacement(this.statements.tableRecordCount.get(pk)!),
    });
  }

  upsertTableRecords(tableKey: string, records: readonly TableRecordInput[], origin: Origin): void {
    const table = this.tables.get(tableKey) ?? this.openStoredTable(tableKey, origin.path);
    const { tableRecordPos, insertTableRecord, updateTableRecord } = this.statements;
    for (let index = 0; index < records.length; index += 1) {
      const record = records[index]!;
      const body = renderedTableRecord(table.fields, record, { fields: table.userFields, isUser: (id) => this.user(id) !== undefined }, origin, index);
      const stored = table.placement.needsLookup ? tableRecordPos.get(table.pk, record.id) : undefined;
      const placement = this.checked(table.placement.place(stored), origin, index, record.id);
      if (placement.isNew) this.insertOnce(() => insertTableRecord.run(table.pk, placement.pos, record.id, body, this.stamp), origin, index, record.id);
      else updateTableRecord.run(body, this.stamp, table.pk, placement.pos, body);
    }
  }

  /** A table written by an earlier load (when `defineDataTable` was not called by this one). */
  private openStoredTable(tableKey: string, path: string): OpenTable {
    const stored = this.statements.table.get(this.tenantId, tableKey);
    if (!stored) throw unknownTable(path, tableKey);
    this.defineDataTable(tableKey, stored.name, JSON.parse(stored.fields) as TableField[], path);
    return this.tables.get(tableKey)!;
  }

  private checked(placement: Placement, origin: Origin, index: number, id: string): Exclude<Placement, 'duplicate'> {
    if (placement === 'duplicate') throw duplicateId(origin, index, id);
    return placement;
  }

  /** Runs an insert of a new id; the unique index turns a second record with that id into an error. */
  private insertOnce(insert: () => unknown, origin: Origin, index: number, id: string): void {
    try {
      insert();
    } catch (error) {
      throw isUniqueViolation(error) ? duplicateId(origin, index, id) : error;
    }
  }
}
