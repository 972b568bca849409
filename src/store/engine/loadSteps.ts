import type { UserRerender, AttributionSteps } from './commonWriteSteps.js';
import type { ManagerEdge } from '../../domain/bulkChecks.js';
import type { UserMonthFragment } from '../../domain/bulkPlan.js';
import type { GroupPeriod } from '../../domain/reportingJson.js';
import type { Answer } from '../vocabulary/answer.js';

/**
 * What loading data into one tenant asks of an engine, inside the load's write transaction
 * (see ../loading/tenantLoader.ts): set-wise reads and writes, each taking every row of a batch. An engine
 * with round trips makes each one statement; SQLite, in process, may run a statement per row.
 * A stored attribution's key is the engine's own: the loader only hands it back to the writes.
 */
export interface LoadSteps extends AttributionSteps<unknown>, FieldSteps, StatementSteps {
  /** The tenant's metric keys, in field order. */
  metricKeys(): Answer<string[]>;
  /** The tenant's dimensions in field order, as [key, primary key]. */
  dimensions(): Answer<[string, number][]>;
  insertMetric(key: string, position: number): Answer<void>;
  /**
   * Appends `fragment` (`,"key":null,"key_currency":`) and then each record's payment currency
   * as a JSON string to every stored body, and `fragmentV2` (`,"custom.key":{"value":null,"currency":`),
   * the currency and `}` to every stored v2 body: a new metric, valued null in the line's currency.
   */
  addMetricToBodies(fragment: string, fragmentV2: string, stamp: number): Answer<void>;
  insertDimension(key: string, position: number): Answer<void>;

  /** The stored users with one of these ids or e-mail keys (ASCII lower case). */
  usersByIdOrEmail(ids: readonly string[], emailKeys: readonly string[]): Answer<StoredUser[]>;
  usersById(ids: readonly string[]): Answer<StoredUser[]>;
  /** The id of the user with this e-mail address (without regard to ASCII case). */
  userIdByEmail(email: string): Answer<string | undefined>;
  /** Upserts users by id, in the order given (an e-mail address freed by one may be taken by a later one). */
  upsertUsers(users: readonly { id: string; email: string; json: string }[]): Answer<{ id: string; pk: number }[]>;
  /** Sets each user's custom attributes (JSON) and last month, where given (`null`: as stored). */
  setUserExtras(rows: readonly { pk: number; attributes: string | null; archivedAfter: number | null }[]): Answer<void>;
  /** Replaces, in the stored bodies of each user's records, the text `before` with `after` (the user object), and in the v2 bodies `beforeV2` with `afterV2`. */
  rerenderUsersInRecords(changes: readonly UserRerender[], stamp: number): Answer<void>;
  /** Every manager attribution of the tenant, as edges. */
  managerEdges(): Answer<ManagerEdge[]>;

  /** The number of reporting records (positions are 0..count-1). */
  recordCount(): Answer<number>;
  recordPositions(ids: readonly string[]): Answer<{ id: string; pos: number }[]>;
  /** Inserts new records; an id already stored (given twice) is skipped and missing from the ids returned. */
  insertRecords(rows: readonly RecordRow[], stamp: number): Answer<string[]>;
  /** Updates the records whose content changed (an unchanged one keeps its stamp). */
  updateRecords(rows: readonly Omit<RecordRow, 'id'>[], stamp: number): Answer<void>;
  /** Makes sure each (user, month) has its dimension fields row; a new one holds minus `stamp`. */
  ensureFieldRows(pairs: readonly { userPk: number; month: number }[], stamp: number): Answer<void>;

  table(key: string): Answer<{ pk: number; name: string; fields: string } | undefined>;
  insertTable(key: string, name: string, fieldsJson: string): Answer<number>;
  renameTable(tablePk: number, name: string): Answer<void>;
  tableRecordCount(tablePk: number): Answer<number>;
  tableRecordPositions(tablePk: number, ids: readonly string[]): Answer<{ id: string; pos: number }[]>;
  /** Like {@link insertRecords}, for a data table. */
  insertTableRecords(tablePk: number, rows: readonly TableRecordRow[], stamp: number): Answer<string[]>;
  updateTableRecords(tablePk: number, rows: readonly Omit<TableRecordRow, 'id'>[], stamp: number): Answer<void>;
}

export interface StoredUser {
  pk: number;
  id: string;
  /** The e-mail address in ASCII lower case. */
  emailKey: string;
  json: string;
}

interface RecordRow {
  pos: number;
  id: string;
  userPk: number;
  month: number;
  body: string;
  bodyV2: string;
}

interface TableRecordRow {
  pos: number;
  id: string;
  body: string;
  bodyV2: string;
}

/** The dimension fields of a tenant's users (`dimension_values`), as ../loading/dimensionFields.ts keeps them. */
export interface FieldSteps {
  /** The tenant's dimension keys, in the order of the record fields. */
  dimensionKeys(): Answer<readonly string[]>;
  /** The stored fields of these users in every month, and their group periods. */
  fieldsOfUsers(userPks: readonly number[]): Answer<{ stored: UserMonthFragment[]; periods: UserGroupPeriod[] }>;
  /** Writes changed fields, stamped `stamp`; a row made by this same transaction keeps minus its stamp. */
  setFields(changed: readonly UserMonthFragment[], stamp: number): Answer<void>;
  /** Up to `n` of the tenant's users after the primary key `afterPk`, by primary key. */
  usersAfter(afterPk: number, n: number): Answer<number[]>;
  /** The fields of a record whose user holds no group, kept with the tenant. */
  setEmptyFragment(fragment: string): Answer<void>;
  /** Stamps every reporting record of the tenant (all of them changed). */
  stampRecords(stamp: number): Answer<void>;
}

export interface UserGroupPeriod extends GroupPeriod {
  userPk: number;
}

/** A statement's status as a load gives it: the statement of a user (primary key) in a month. */
export interface StatementStatusRow {
  userPk: number;
  month: number;
  status: string;
}

/** The statements of a tenant (docs/rules.md#statements): one per user and month with lines, kept with its status and total. */
export interface StatementSteps {
  /**
   * Brings every statement of the tenant in line with its lines: a statement whose lines are
   * all gone goes, a new one gets the default status (`validated` before `currentMonth`,
   * `draft` from it), and each total (and its currency) that changed is written, stamped `stamp`.
   */
  refreshStatements(stamp: number, currentMonth: number): Answer<void>;
  /** Sets the status of each statement given, stamping those that change; the indexes of the rows whose statement does not exist. */
  setStatementStatuses(rows: readonly StatementStatusRow[], stamp: number): Answer<number[]>;
}
