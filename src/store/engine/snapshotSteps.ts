import type { Tenant } from '../vocabulary/tenancy.js';
import type { Answer } from '../vocabulary/answer.js';
import type { EngineReads, TableRow } from './readSteps.js';
import type { ManagerEdge } from '../../domain/bulkChecks.js';
import type { MonthIndex } from '../../domain/months.js';
import type { GroupPeriod } from '../../domain/reportingJson.js';
import type { Violation } from '../vocabulary/adminShapes.js';
/** The steps of one snapshot: the service's reads, those of `export` and those of `check`. */
export interface SnapshotSteps {
  readonly reads: EngineReads;
  readonly dataset: DatasetSteps;
  readonly invariants: InvariantReads;
}

/** A user as `export` reads it: its key, its user object, its custom attributes' JSON and last month (archived users). */
export interface ExportedUser {
  key: string;
  json: string;
  attributes: string;
  archivedAfter: number | null;
}

/** A statement as `export` reads it: its user's key and e-mail address, its month and status. */
export interface ExportedStatement {
  key: string;
  email: string;
  month: number;
  status: string;
}

/** What `export` reads besides the paged listings. */
export interface DatasetSteps {
  metricKeys(tenantId: number): Answer<string[]>;
  dimensionKeys(tenantId: number): Answer<string[]>;
  /** Up to `n` users by e-mail address (without regard to ASCII case), after the one whose key is `after` (`''`: from the first): each one's key and stored JSON. */
  usersAfter(tenantId: number, after: string, n: number): Answer<ExportedUser[]>;
  /** Up to `n` statements by their user's e-mail address (as `usersAfter`) and month, after the statement of the user whose key is `after` in `afterMonth`. */
  statementsAfter(tenantId: number, after: string, afterMonth: number, n: number): Answer<ExportedStatement[]>;
  tables(tenantId: number): Answer<TableRow[]>;
  emptyFragment(tenantId: number): Answer<string>;
}

/**
 * `compdata check`, engine-neutral: what each engine reads (`InvariantReads`, its SQL) and how
 * the findings are told (here, once for both). Every read is of one tenant, and each finds at
 * most one example; the first tenant (by name) with an example of a kind gives the kind's line.
 */

/** Two periods of one slot that share a month: `earlier` starts first, `month` is held by both. */
export interface SlotOverlap {
  readonly email: string;
  /** Group overlaps: the dimension. */
  readonly dimension?: string;
  /** The group names (group overlaps) or the managers' e-mails (manager overlaps). */
  readonly earlier: string;
  readonly later: string;
  readonly month: MonthIndex;
}

/** The stored dimension fields of one user, and the group periods they are rendered from. */
export interface UserFragments {
  readonly email: string;
  /** [month, fields] of each (user, month) with reporting records. */
  readonly stored: readonly (readonly [MonthIndex, string])[];
  readonly periods: readonly GroupPeriod[];
}

/** An archived user that manages someone after its last month. */
export interface ArchivedManager {
  readonly manager: string;
  readonly report: string;
  readonly lastMonth: MonthIndex;
  /** The first month after the last in which it manages `report`. */
  readonly month: MonthIndex;
}

/** Positions of a tenant's records (or of one table's) that are not 0..count-1. */
export interface PositionGap {
  /** `reporting records`, or `records of table <key>`. */
  readonly what: string;
  readonly count: number;
  readonly min: number;
  readonly max: number;
}

/**
 * A statement that does not agree with its lines (docs/rules.md#statements): lines of a user and
 * month without a stored statement, a statement without lines, or a stored total (or currency)
 * other than its lines' sum. Totals in millionths as decimal text, currencies as JSON text;
 * `null` where there is none.
 */
export interface StatementMismatch {
  readonly email: string;
  readonly month: MonthIndex;
  /** How many lines the user has in the month (0: a statement without lines). */
  readonly lines: number;
  /** Whether a statement is stored. */
  readonly stored: boolean;
  readonly storedTotal: string | null;
  readonly storedCurrency: string | null;
  readonly linesTotal: string | null;
  readonly linesCurrency: string | null;
}

export interface InvariantReads {
  /** Problems of the storage itself, outside the data model (SQLite: integrity and foreign keys). */
  storage(): Promise<Violation[]>;
  tenants(): Promise<Tenant[]>;
  groupOverlap(tenantId: number): Promise<SlotOverlap | undefined>;
  managerOverlap(tenantId: number): Promise<SlotOverlap | undefined>;
  managerEdges(tenantId: number): Promise<ManagerEdge[]>;
  /** An archived user that manages someone after its last month (docs/rules.md#archived-users). */
  archivedManager(tenantId: number): Promise<ArchivedManager | undefined>;
  email(tenantId: number, userPk: number): Promise<string>;
  dimensionKeys(tenantId: number): Promise<string[]>;
  /** The tenant's fields of a user in no group (stored with the tenant). */
  emptyFragment(tenantId: number): Promise<string>;
  /** Every user of the tenant that has stored dimension fields, a chunk of users at a time. */
  userFragments(tenantId: number): AsyncIterable<UserFragments[]>;
  /** A reporting record whose user and month have no stored dimension fields. */
  recordWithoutFragment(tenantId: number): Promise<{ id: string; email: string; month: MonthIndex } | undefined>;
  positionGap(tenantId: number): Promise<PositionGap | undefined>;
  /**
   * A record (`reporting record <id>` or `record <id> of table <key>`) without its v2 text, or
   * whose time of last change (or its dimension fields') is not the time of its stamp.
   */
  v2Mismatch(tenantId: number): Promise<string | undefined>;
  /** The first statement (by e-mail address and month) that does not agree with its lines. */
  statementMismatch(tenantId: number): Promise<StatementMismatch | undefined>;
  /**
   * The user objects are kept apart from the records (docs/rules.md#users): the first copy of a
   * user object kept for a user's records of a month that is not the user's (PostgreSQL keeps
   * one per user and month), or else the first record whose stored parts are not its texts cut
   * around its user's object (v1 and v2).
   */
  userObjectMismatch(tenantId: number): Promise<UserObjectMismatch | undefined>;
}

export type UserObjectMismatch =
  | { readonly email: string; readonly month: MonthIndex; readonly kept: string; readonly user: string }
  | { readonly recordId: string };
