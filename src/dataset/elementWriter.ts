import { firstPayloadOverlap, type SlotPeriod } from '../domain/bulkChecks.js';
import { DatasetError } from '../domain/datasetError.js';
import { formatMonth, parseMonth, type MonthIndex } from '../domain/months.js';
import { startBound } from '../domain/periods.js';
import type { ReportingUser } from '../domain/reportingJson.js';
import type { TableField, TableRecordInput } from '../domain/tableJson.js';
import type { Origin, TenantWriter } from '../store/vocabulary/tenantWriter.js';
import type { StatementStatus } from '../domain/statements.js';
import { SECTIONS, jsonPathOf, type DatasetElement, type ElementKind, type GroupAttributionElement, type KeyElement, type ManagerAttributionElement, type StatementElement, type TableElement } from './datasetFormat.js';
import { assertValidElement } from './datasetSchema.js';
import { assertSameUser, statementLineOf, type CustomFields, type ReportingRecordElement } from './reportingElement.js';

/** Records handed to the store at a time: large enough to amortise, small enough to hold. */
const BATCH_SIZE = 500;

export type ElementCounts = Record<ElementKind, number>;

type Flush = (items: unknown[], origin: Origin) => Promise<void>;

/**
 * The one way data enters a tenant (import and seed alike): each element of a dataset is
 * checked against the schema as it comes, translated from the dataset's shapes (the API's) to
 * the store's, and written through the {@link TenantWriter} in batches. Rules that span
 * elements are checked here: ids and keys given twice, references to users and dimensions,
 * attributions of one slot that share a month, cycles of managers. Every error is a
 * `DatasetError` at the element's JSON path; the caller's transaction then undoes everything.
 * Elements are written one at a time: await each `write` before the next.
 */
export class ElementWriter {
  readonly counts = Object.fromEntries([...SECTIONS, 'table_records'].map((kind) => [kind, 0])) as ElementCounts;
  private kind: ElementKind | undefined;
  private readonly keys = { metrics: [] as string[], dimensions: [] as string[] };
  private readonly keysSeen = new Set<string>();
  private keysDefined = false;
  private custom: CustomFields | undefined;
  private readonly userIds = new Set<string>();
  private readonly tableKeys = new Set<string>();
  private tableKey = '';
  private slots: SlotPeriod[] = [];
  private batch: unknown[] = [];
  private batchOrigin: Origin = { path: '$', first: 0 };
  private flushTo: Flush | undefined;

  constructor(private readonly writer: TenantWriter) {}

  /** Checks and writes one element (elements come in dataset order). */
  async write(element: DatasetElement): Promise<void> {
    assertValidElement(element);
    if (element.kind !== this.kind) await this.enter(element.kind);
    this.counts[element.kind] += 1;
    switch (element.kind) {
      case 'format':
        return;
      case 'metrics':
      case 'dimensions':
        return this.addKey(element.kind, element.value as KeyElement, jsonPathOf(element));
      case 'users':
        return this.addUser(element.value as ReportingUser, element.index, jsonPathOf(element));
      case 'group_attributions':
        return this.addGroupAttribution(element.value as GroupAttributionElement, element.index, jsonPathOf(element));
      case 'manager_attributions':
        return this.addManagerAttribution(element.value as ManagerAttributionElement, element.index, jsonPathOf(element));
      case 'reporting': {
        // The element's path is built only for an error: this is the hot path of a load.
        const record = element.value as ReportingRecordElement;
        assertSameUser(record.user, await this.writer.storedUser(record.user.id), element);
        return this.add(statementLineOf(record, this.custom!, element), element.index);
      }
      case 'statements':
        return this.addStatement(element.value as StatementElement, element.index, jsonPathOf(element));
      case 'tables':
        return this.defineTable(element.value as TableElement, jsonPathOf(element));
      case 'table_records':
        return this.add(element.value, element.index);
    }
  }

  /** Writes what is pending and checks what spans a section; call after the last element. */
  async finish(): Promise<void> {
    await this.enter(undefined);
    await this.writer.finish();
  }

  /** Moves to another kind of element: what the previous kind left pending is written and checked. */
  private async enter(kind: ElementKind | undefined): Promise<void> {
    await this.flush();
    if (this.kind === 'group_attributions') this.assertNoOverlap('group_attributions', 'the same user and group_dimension');
    if (this.kind === 'manager_attributions') {
      this.assertNoOverlap('manager_attributions', "the same user's manager");
      const chain = await this.writer.managerChain();
      if (chain) {
        const when = chain.month === null ? 'in every month' : `in ${formatMonth(chain.month)}`;
        const emails = [...chain.emails, chain.emails[0]!].join(' -> ');
        throw new DatasetError('$.manager_attributions', `managers would form a cycle ${when}: ${emails} (each managed by the next)`);
      }
    }
    const rank = kind === undefined ? SECTIONS.length : SECTIONS.indexOf(kind === 'table_records' ? 'tables' : kind);
    if (!this.keysDefined && rank > SECTIONS.indexOf('dimensions')) {
      await this.writer.defineMetricsAndDimensions(this.keys.metrics, this.keys.dimensions);
      this.keysDefined = true;
    }
    this.kind = kind;
    this.flushTo = this.flushFor(kind);
  }

  private flushFor(kind: ElementKind | undefined): Flush | undefined {
    const w = this.writer;
    switch (kind) {
      case 'users':
        return (items, origin) => w.upsertUsers(items as ReportingUser[], origin);
      case 'group_attributions':
        return (items, origin) => w.addGroupAttributions(items as Parameters<TenantWriter['addGroupAttributions']>[0], origin);
      case 'manager_attributions':
        return (items, origin) => w.addManagerAttributions(items as Parameters<TenantWriter['addManagerAttributions']>[0], origin);
      case 'reporting':
        this.custom = { metricKeys: new Set(w.metricKeys), dimensionKeys: new Set(w.dimensionKeys) };
        return (items, origin) => w.upsertReportingRecords(items as Parameters<TenantWriter['upsertReportingRecords']>[0], origin);
      case 'statements':
        return (items, origin) => w.setStatementStatuses(items as Parameters<TenantWriter['setStatementStatuses']>[0], origin);
      case 'table_records':
        return (items, origin) => w.upsertTableRecords(this.tableKey, items as TableRecordInput[], origin);
      default:
        return undefined;
    }
  }

  private async add(item: unknown, index: number): Promise<void> {
    if (this.batch.length === 0) this.batchOrigin = { path: this.sectionPath(), first: index };
    this.batch.push(item);
    if (this.batch.length >= BATCH_SIZE) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.batch.length === 0) return;
    const items = this.batch;
    this.batch = [];
    await this.flushTo!(items, this.batchOrigin);
  }

  private sectionPath(): string {
    return this.kind === 'table_records' ? `$.tables[${this.counts.tables - 1}].records` : `$.${this.kind!}`;
  }

  private addKey(section: 'metrics' | 'dimensions', element: KeyElement, path: string): void {
    if (this.keysSeen.has(element.key)) throw new DatasetError(`${path}.key`, `${JSON.stringify(element.key)} is given twice (as a metric or dimension)`);
    this.keysSeen.add(element.key);
    this.keys[section].push(element.key);
  }

  private addUser(user: ReportingUser, index: number, path: string): Promise<void> {
    if (this.userIds.has(user.id)) throw new DatasetError(`${path}.id`, `${JSON.stringify(user.id)} is given twice (ids are unique)`);
    this.userIds.add(user.id);
    return this.add(user, index);
  }

  private async addGroupAttribution(element: GroupAttributionElement, index: number, path: string): Promise<void> {
    const userId = await this.userIdOf(element.user, `${path}.user`);
    if (!this.writer.hasDimension(element.group_dimension)) {
      throw new DatasetError(`${path}.group_dimension`, `no dimension ${element.group_dimension}`);
    }
    const start = parseMonth(element.start_date)!;
    const end = this.endMonth(element.end_date, start, path);
    this.slots.push({ slot: JSON.stringify([userId, element.group_dimension]), start, end });
    await this.add({ user_id: userId, dimension: element.group_dimension, group: element.group, start, end }, index);
  }

  private async addManagerAttribution(element: ManagerAttributionElement, index: number, path: string): Promise<void> {
    const userId = await this.userIdOf(element.user, `${path}.user`);
    const managerId = await this.userIdOf(element.manager, `${path}.manager`);
    const start = element.start_date == null ? null : parseMonth(element.start_date)!;
    const end = this.endMonth(element.end_date, start, path);
    this.slots.push({ slot: userId, start, end });
    await this.add({ user_id: userId, manager_id: managerId, start, end }, index);
  }

  /** A statement's status; the loader checks that it is given once and that the statement has lines (when the load finishes). */
  private async addStatement(element: StatementElement, index: number, path: string): Promise<void> {
    const userId = await this.userIdOf(element.user, `${path}.user`);
    await this.add({ user_id: userId, month: parseMonth(element.month)!, status: element.status as StatementStatus }, index);
  }

  private async defineTable(table: TableElement, path: string): Promise<void> {
    if (this.tableKeys.has(table.key)) throw new DatasetError(`${path}.key`, `table ${table.key} is given twice`);
    this.tableKeys.add(table.key);
    await this.writer.defineDataTable(table.key, table.name, table.fields as TableField[], path);
    this.tableKey = table.key;
  }

  private async userIdOf(email: string, path: string): Promise<string> {
    const id = await this.writer.userIdByEmail(email);
    if (id === undefined) throw new DatasetError(path, `no user with e-mail address ${email}`);
    return id;
  }

  private endMonth(text: string | null | undefined, start: MonthIndex | null, path: string): MonthIndex | null {
    const end = text == null ? null : parseMonth(text)!;
    if (end !== null && start !== null && end < start) throw new DatasetError(`${path}.end_date`, 'is before start_date');
    return end;
  }

  private assertNoOverlap(section: string, slotName: string): void {
    const overlap = firstPayloadOverlap(this.slots);
    if (overlap) {
      const item = this.slots[overlap.index]!;
      const other = this.slots[overlap.otherIndex]!;
      const shared = Math.max(startBound(item), startBound(other));
      const month = Number.isFinite(shared) ? `both hold ${formatMonth(shared)}` : 'both hold the months before their ends';
      throw new DatasetError(`$.${section}[${overlap.index}]`, `overlaps $.${section}[${overlap.otherIndex}]: ${slotName} in a shared month (${month})`);
    }
    this.slots = [];
  }
}
