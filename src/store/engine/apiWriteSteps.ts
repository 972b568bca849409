import type { AttributionSteps, UserRerender } from './commonWriteSteps.js';
import type { Answer } from '../vocabulary/answer.js';
import type { ManagerEdge } from '../../domain/bulkChecks.js';
import type { UserMonthFragment } from '../../domain/bulkPlan.js';
import type { UserRef } from '../../domain/userRef.js';
import type { Period } from '../../domain/periods.js';
import type { ReportAfter } from '../../domain/archiveItems.js';
import type { IdempotentRequest } from '../vocabulary/writeShapes.js';
import type { WriteSteps } from './transactionSteps.js';

/**
 * What the bulk upsert asks of an engine, for one tenant inside one write transaction: each
 * step reads or writes what the whole request needs (an engine with round trips makes each
 * one statement; SQLite, in process, may run a statement per row).
 */
export interface BulkSteps<G, M = G> extends AttributionSteps<G, M> {
  /** The tenant's users named by `sent` (e-mails compared without regard to ASCII case), by the name as sent. */
  users(sent: readonly string[]): Answer<ReadonlyMap<string, UserRef>>;
  /** The tenant's dimensions, key to primary key. */
  dimensions(): Answer<ReadonlyMap<string, number>>;
  /**
   * The stored manager edges a cycle through one of `edges` could run along: from each new
   * edge's manager upwards, through edges sharing a month with the way walked so far.
   */
  reachableManagers(edges: readonly ManagerEdge[]): Answer<readonly ManagerEdge[]>;
  /** The stored dimension fields of each user in the months of its period. */
  fragments(months: ReadonlyMap<number, Period>): Answer<readonly UserMonthFragment[]>;
  /** Writes changed dimension fields, stamped with a new change of the tenant. */
  updateFragments(changed: readonly UserMonthFragment[]): Answer<void>;
  /** The tenant's data changed: a new data version (what a paged read's ETag is made of). */
  dataChanged(): Answer<void>;
}

/** A stored user row: its key, the user object's JSON and the custom attributes' JSON. */
export interface StoredUserRow {
  readonly pk: number;
  readonly json: string;
  readonly attributes: string;
}

/** A user row to write, found again by its id. */
interface UserRowInput {
  readonly id: string;
  readonly email: string;
  readonly json: string;
  readonly attributes: string;
}

/**
 * What `PUT /v1/users/bulk` asks of an engine, for one tenant inside one write transaction:
 * each step reads or writes what the whole request needs.
 */
export interface UserSteps {
  /** The tenant's users whose e-mail in ASCII lower case is one of `emailKeys`, or whose id is one of `ids`. */
  users(emailKeys: readonly string[], ids: readonly string[]): Answer<readonly StoredUserRow[]>;
  /** Upserts the users by id (user object and attributes); the key of each. */
  upsertUsers(rows: readonly UserRowInput[]): Answer<readonly { id: string; pk: number }[]>;
  /** Replaces, in the stored bodies of each user's records, the text `before` with `after` (the user object). */
  rerenderUsersInRecords(changes: readonly UserRerender[], stamp: number): Answer<void>;
  /** A new stamp of the tenant's changes (incremental sync). */
  nextStamp(): Answer<number>;
  /** The tenant's data changed: a new data version. */
  dataChanged(): Answer<void>;
}

/** What `DELETE /v1/users/archive/bulk` asks of an engine, for one tenant inside one write transaction. */
export interface ArchiveSteps extends Pick<BulkSteps<unknown>, 'users' | 'dataChanged'> {
  /** For each user, the first report it manages after its month `end` (a stored manager attribution naming it as manager), if any. */
  reportsAfter(wanted: readonly { userPk: number; end: number }[]): Answer<readonly ReportAfter[]>;
  /** Sets each user's last active month. */
  archive(rows: readonly { userPk: number; end: number }[]): Answer<void>;
}

/** What the tenant's keys remember, inside a write transaction (the tenant's writers are serialised). */
export interface IdempotencySteps {
  /** The request remembered under `key` since `since` (older ones are forgotten first), if any. */
  recall(key: string, since: number): Answer<{ fingerprint: string; written: string } | undefined>;
  /** Remembers what the request wrote (the JSON of its outcome), in the transaction that writes it. */
  remember(request: IdempotentRequest, written: string): Answer<void>;
}

/** The SQL of imports, for one tenant inside one write transaction of an engine. */
export interface ImportSteps {
  /** The tenant's data table `key` (its primary key and fields' JSON), if any. */
  table(key: string): Answer<{ pk: number; fields: string } | undefined>;
  /** The tenant's latest import that has not started, if any. */
  scheduled(): Answer<{ pk: number; id: string } | undefined>;
  create(id: string, createdAt: string, launchAt: number): Answer<number>;
  setLaunchAt(importPk: number, launchAt: number): Answer<void>;
  /** Adds `lines` lines to the import's table (made when missing, `all` when any push says so): the number of its lines before. */
  addLines(importPk: number, table: string, all: boolean, lines: number): Answer<number>;
  /** Stores one chunk of lines (a JSON array text), the first of them numbered `firstLine`. */
  stage(importPk: number, table: string, firstLine: number, json: string): Answer<void>;
  state(importPk: number): Answer<{ status: 'scheduled' | 'started' | 'finished'; launchAt: number; owner: string | null; heartbeatAt: number | null } | undefined>;
  /** Marks the import started by `owner` (its launch time kept when it had one). */
  claim(importPk: number, owner: string, at: number, launchedAt: string): Answer<void>;
  /** The import's tables not finished, in the order of their first push, with whether each replaces its table. */
  unfinished(importPk: number): Answer<{ key: string; all: boolean }[]>;
  /** The table's stored chunks, in line order. */
  staged(importPk: number, table: string): Answer<string[]>;
  /** The table finished: its records imported (`null` when it failed), its error's JSON, its ignored fields' JSON; its chunks are dropped. */
  finishTable(importPk: number, table: string, records: number | null, error: string | null, ignored: string | null): Answer<void>;
  finish(importPk: number, finishedAt: string): Answer<void>;
  /** Deletes the table's records (noted as removed for v2's walks); tokens of its sync before `stamp` call for a new sync. */
  clearTable(tablePk: number, tableKey: string, stamp: number): Answer<void>;
}

/** What an import's steps need of the engine, inside the write transaction. */
export interface ImportRunSteps {
  readonly tenantId: number;
  readonly imports: ImportSteps;
  /** The write steps of the transaction (stamps, data version, the loader's steps). */
  readonly writes: WriteSteps;
  readonly textHoldsNul: boolean;
  /** Called after each batch of records written, with the milliseconds it took: may pause to give way to the server's requests. */
  readonly afterBatch?: (workedMs: number) => Promise<void>;
}

/** The steps of each kind of write, for one tenant inside one write transaction of an engine. */
export interface TenantWriteSteps {
  attributions(): BulkSteps<unknown>;
  users(): UserSteps;
  archive(): ArchiveSteps;
  idempotency(): IdempotencySteps;
  imports(): ImportRunSteps;
}
