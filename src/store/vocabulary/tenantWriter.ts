import type { MonthIndex } from '../../domain/months.js';
import type { StatementStatus } from '../../domain/statements.js';
import type { AttributeValue } from '../../domain/userItems.js';
import type { ReportingUser, StatementLine } from '../../domain/reportingJson.js';
import type { TableField, TableRecordInput } from '../../domain/tableJson.js';

/**
 * How data enters a tenant (`import`, `seed`, test fixtures), whatever the engine: the writer
 * that `Store.loadTenant` hands out inside its transaction. Users are upserted by id, records
 * by id (a stored record keeps its position, a new one is appended), attributions override the
 * stored ones of their slot in their months (the override rule of
 * docs/rules.md#bulk-attributions). Errors are `DatasetError`s with the JSON path of the item
 * (`origin` says where a batch starts in the dataset).
 */
export interface TenantWriter {
  /** The tenant's metric keys, in field order. */
  readonly metricKeys: readonly string[];
  /** The tenant's dimension keys, in field order. */
  readonly dimensionKeys: readonly string[];
  /** How many reporting records the tenant has, and how many this writer added and updated. */
  readonly reportingCounts: { total: number; added: number; updated: number };

  /**
   * Adds the metric and dimension keys not defined yet, after the existing ones. Stored records
   * get a new metric as `null` (in their payment currency) and a new dimension as `[]` or the
   * groups their users hold.
   */
  defineMetricsAndDimensions(metrics: readonly string[], dimensions: readonly string[]): Promise<void>;
  upsertUsers(users: readonly UserInput[], origin?: Origin): Promise<void>;
  /** The id of the tenant's user with this e-mail address (without regard to case). */
  userIdByEmail(email: string): Promise<string | undefined>;
  /** The tenant's user with this id, as stored. */
  storedUser(id: string): Promise<ReportingUser | undefined>;
  hasDimension(key: string): boolean;
  /** Writes group attributions, each overriding the stored ones of its user and dimension in its months. */
  addGroupAttributions(items: readonly GroupAttributionInput[], origin?: Origin): Promise<void>;
  /** Writes manager attributions, each overriding the stored ones of its user in its months. */
  addManagerAttributions(items: readonly ManagerAttributionInput[], origin?: Origin): Promise<void>;
  /** The first chain of managers of the tenant that comes back to its start, if any. */
  managerChain(): Promise<ManagerChain | undefined>;
  /** Upserts reporting records by id: a stored one is updated in place, a new one appended. */
  upsertReportingRecords(lines: readonly ReportingLineInput[], origin?: Origin): Promise<void>;
  /** Creates the data table, or checks that the stored one has these fields (and renames it). */
  defineDataTable(key: string, name: string, fields: readonly TableField[], path?: string): Promise<void>;
  upsertTableRecords(tableKey: string, records: readonly TableRecordInput[], origin?: Origin): Promise<void>;
  /**
   * Gives statements their status (docs/rules.md#statements), once the lines are written: each
   * must be the statement of a user and month with lines by then, and given once.
   */
  setStatementStatuses(items: readonly StatementStatusInput[], origin?: Origin): Promise<void>;
  /** Brings the dimension fields of every user touched by this writer and the statements up to date; call last. */
  finish(): Promise<void>;
}

/**
 * A user as a dataset gives it: the user object, and optionally its custom attributes (by key)
 * and the last month of an archived user; absent, those stored stay (docs/rules.md#users).
 */
export interface UserInput extends ReportingUser {
  readonly attributes?: Readonly<Record<string, AttributeValue>>;
  readonly archived_after?: string;
}

/** Where a batch of items stands in the dataset: item `i` is at `${path}[${first + i}]`. */
export interface Origin {
  readonly path: string;
  readonly first: number;
}

export const itemPath = (origin: Origin, index: number): string => `${origin.path}[${origin.first + index}]`;

export interface ReportingLineInput extends StatementLine {
  /** Id of an existing user of the tenant. */
  user_id: string;
}

export interface StatementStatusInput {
  user_id: string;
  month: MonthIndex;
  status: StatementStatus;
}

export interface GroupAttributionInput {
  user_id: string;
  dimension: string;
  group: string;
  start: MonthIndex;
  end: MonthIndex | null;
}

export interface ManagerAttributionInput {
  user_id: string;
  manager_id: string;
  start: MonthIndex | null;
  end: MonthIndex | null;
}

/** A chain of managers that comes back to its start (`emails[i]` managed by `emails[i + 1]`). */
export interface ManagerChain {
  emails: string[];
  /** One month where it holds; `null`: every month. */
  month: MonthIndex | null;
}
