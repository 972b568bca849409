import type { ArchiveItem } from '../domain/archiveItems.js';
import type { Upsert } from '../domain/bulkItems.js';
import type { ReportingFilter } from '../domain/reportingFilter.js';
import type { StoredImport } from '../domain/importJson.js';
import type { TableField } from '../domain/tableJson.js';
import type { AttributeValue, UserUpsert } from '../domain/userItems.js';
import type { WriteOutcome, WrittenItem } from './tenantWrites.js';
import type { Structure } from '../domain/v2Json.js';
import type { V2Page, V2Query } from './paging/v2Paging.js';
import type { TenantWriter } from './tenantWriting.js';
import type { RequestsInProgress } from './threads/requestsInProgress.js';
import type { PendingImport, Pushed, PushItem } from './tableImports.js';

/**
 * The one boundary between the service and its data: the HTTP handlers, the CLI and the
 * dataset code talk to a `Store` and never know which engine is behind it. Every operation is
 * asynchronous, so that an engine may do its work off the event loop (the SQLite engine writes
 * in a thread of its own) or over the network.
 *
 * Built by `openStore` (openStore.ts), the only place that picks an engine.
 */
export interface Store {
  /**
   * The tenant a request's API key grants, or `undefined` for a missing, unknown or revoked key
   * (docs/rules.md#keys). `read`: the request only reads, and may be served by a read replica
   * (one that has replayed past its `consistency` token, when it sends one); without it, the
   * request is served by the primary. The principal then carries the server chosen.
   */
  authenticate(presentedKey: string | undefined, read?: { consistency?: string }): Promise<Principal | undefined>;
  /**
   * Which server served the reads of a request so far, as the `Compdata-Served-By` header says it
   * (`primary`, or `replica-1;position=N`: the replica and a replay position it had reached before
   * the read); `undefined` on a store without read replicas.
   */
  servedBy(principal: Principal): string | undefined;
  /** The read servers (the primary first) and their state, for `/healthz` and `/metrics`; empty without read replicas. */
  readServers(): ReplicaState[];
  /** Up to `query.limit` records of `source` from `query.offset` (or after the key in `query.cursor`). */
  page(principal: Principal, source: Source, query: PageQuery): Promise<PageOutcome>;
  /** How many records `source` holds (`limit=0`); `undefined` when the tenant has no such table. */
  total(principal: Principal, source: Source): Promise<Total | undefined>;
  /** Incremental sync (`changed_since`): up to `query.limit` records of `source` changed after the token `query.since`, in change order. */
  changes(principal: Principal, source: ChangedSource, query: ChangeQuery): Promise<ChangeOutcome>;
  /**
   * A v2 page of a structure (docs/rules.md#v2-reads): its records after `query.startId`;
   * `unknownStructure` when the tenant has no such table, `badStartId` when the id never named
   * a record of it.
   */
  v2Page(principal: Principal, structure: Structure, query: V2Query): Promise<V2Page | 'unknownStructure' | 'badStartId'>;
  /** `PUT /v1/users/groups/bulk` (docs/rules.md#bulk-attributions): every item written in one transaction, or nothing and the rules broken. */
  bulkUpsert(principal: Principal, items: readonly Upsert[], options?: WriteOptions): Promise<BulkOutcome>;
  /** `PUT /v1/users/bulk` (docs/rules.md#users): every user written in one transaction (the users as stored), or nothing and the rules broken. */
  upsertUsers(principal: Principal, items: readonly UserUpsert[], options?: WriteOptions): Promise<WriteOutcome<Record<string, AttributeValue>[]>>;
  /** `DELETE /v1/users/archive/bulk` (docs/rules.md#archived-users): every user archived in one transaction (their number), or nothing and the rules broken. */
  archiveUsers(principal: Principal, items: readonly ArchiveItem[], options?: WriteOptions): Promise<WriteOutcome<number>>;
  /**
   * `POST /v1/tables/{data_table_key}/records/bulk` (docs/rules.md#table-imports): the push and
   * its lines (`staged`, JSON array texts) stored in one transaction, joined to the tenant's
   * import that has not started or in a new one; the import's id. Imported later by
   * {@link runImport}.
   */
  pushRecords(principal: Principal, push: Omit<PushItem, 'at'>, staged: readonly string[], options?: WriteOptions): Promise<WriteOutcome<Pushed>>;
  /** `GET /v1/imports/{import_id}`: an import of the tenant, read on the primary; `undefined` when it has none with this id. */
  importOf(principal: Principal, id: string): Promise<StoredImport | undefined>;
  /** Every tenant's unfinished imports (importRunner.ts). */
  pendingImports(): Promise<PendingImport[]>;
  /**
   * Runs an import for the server `owner`: claims it (a scheduled one once due, a started one of
   * `owner`'s, or of the server `replaces` names as gone), then each of its tables left in a
   * transaction of its own, then marks it finished. A table whose transaction fails is recorded
   * as failed (a full disk: `StorageError`); a store that cannot write now throws, and the
   * import stays as it is for a later run.
   */
  runImport(pending: PendingImport, owner: string, replaces?: { owner: string | null; heartbeatAt: number | null }): Promise<void>;
  /** Discovery: the tenant's data tables (only `key`'s when given), by key, with their fields and record counts. */
  tables(principal: Principal, key?: string): Promise<TableSummary[]>;
  /** Discovery: the custom fields of the tenant's reporting records. */
  reportingSchema(principal: Principal): Promise<ReportingSchema>;
  /** Resolves when the database answers a read. */
  health(): Promise<void>;
  /** Bytes the database takes (SQLite: the file and its WAL; PostgreSQL: the whole database), for `/metrics`. */
  databaseBytes(): Promise<number>;

  findTenant(name: string): Promise<Tenant | undefined>;
  /** A new key for the tenant (created when missing), of `scope` (default `write`); the key itself is only in the answer. */
  createKey(tenantName: string, scope?: KeyScope): Promise<{ id: string; key: string }>;
  /** Revokes a key given whole or by id; false when no active key matched. */
  revokeKey(keyOrId: string): Promise<boolean>;
  /** The keys (never their secrets), of one tenant or all. */
  listKeys(tenantName?: string): Promise<KeyInfo[]>;

  /**
   * Runs `work` with a writer of the tenant `tenantName` (created when missing) inside one
   * transaction: committed when `work` resolves, rolled back when it throws, so that a failed
   * load leaves nothing behind (the tenant's creation included). Readers see the data as it was
   * until the commit.
   */
  loadTenant<T>(tenantName: string, options: LoadOptions, work: (writer: TenantWriter) => Promise<T>): Promise<T>;
  /**
   * Runs `work` over the tenant's data as one snapshot (writers go on meanwhile); `undefined`
   * when there is no such tenant.
   */
  readTenant<T>(tenantName: string, work: (reads: DatasetReads) => Promise<T>): Promise<T | undefined>;

  /**
   * The database's integrity and the data model's invariants (`compdata check`): each kind of
   * violation found, with its first example; none when all hold. Reads one snapshot.
   */
  check(): Promise<Violation[]>;
  /** How the database spreads the tables over servers (`compdata check` says it), or `undefined` when it is one server's. */
  distribution(): Promise<string | undefined>;
  /**
   * A consistent copy of the whole database into a new file at `target` (`compdata backup`),
   * taken while servers go on reading and writing. `target` appears only once complete: a
   * failed copy leaves nothing there. Throws {@link BackupUnsupported} on an engine whose
   * databases are copied with its own tools.
   */
  backup(target: string): Promise<void>;
  /**
   * Gives the space that deleted and rewritten data left free back to the file system
   * (`compdata compact`): the database's bytes before and after. Writes wait for it meanwhile.
   * Throws {@link CompactUnsupported} on an engine that reuses that space by itself.
   */
  compact(): Promise<{ bytesBefore: number; bytesAfter: number }>;
  /**
   * The requests of the server that serves this store, counted by it (admission) in memory the
   * store's threads share: its background work gives way to them (on PostgreSQL, imports).
   */
  readonly requestsInProgress: RequestsInProgress;

  /** Finishes the writes in progress and releases the database (for SQLite: the WAL folded into the file). */
  close(): Promise<void>;
}

/** What a request's key grants: its tenant, and whether it may write. Engines may carry more (what their reads need). */
export interface Principal {
  readonly tenantId: number;
  readonly scope: KeyScope;
}

/** What a key may do (docs/rules.md#keys): `read` only reads; `write` reads and writes. */
export type KeyScope = 'read' | 'write';

export interface Tenant {
  readonly id: number;
  readonly name: string;
}

export interface KeyInfo {
  id: string;
  tenant: string;
  created_at: string;
  state: 'active' | 'revoked';
  scope: KeyScope;
}

/** A paged listing of a tenant (docs/rules.md#paging): one page request serves every one of them. */
export type Source =
  | ({ readonly kind: 'reporting' } & ReportingFilter)
  | { readonly kind: 'tableRecords'; readonly table: string }
  | { readonly kind: 'groupAttributions'; readonly user?: string; readonly dimension?: string }
  | { readonly kind: 'managerAttributions'; readonly user?: string };

/** The listings that can be synced by `changed_since`. */
export type ChangedSource = Extract<Source, { kind: 'reporting' | 'tableRecords' }>;

export interface ChangeQuery {
  /** The `changed_since` of the request: `0` or a token this server issued. */
  readonly since: string;
  /** Records wanted, at least 1. */
  readonly limit: number;
}

/** A page of changes: a `next` token while more follow, else the `sync_token` for the next sync. */
export interface ChangePage {
  readonly count: number;
  /** The records' JSON texts, comma-separated, UTF-8 (empty when `count` is 0). */
  readonly json: Buffer;
  readonly next?: string;
  readonly syncToken?: string;
  /** See {@link Total.version}. */
  readonly version: string;
}

/**
 * A page of changes, or why there is none: no such table (404), a token this server did not
 * issue for this listing (400), a token from before the tenant's data was replaced (410).
 */
type ChangeOutcome = ChangePage | 'unknownTable' | 'badToken' | 'resync';

export interface PageQuery {
  /** Position of the first record (up to 2^63 - 1). */
  readonly offset: bigint;
  /** Records wanted, at least 1. */
  readonly limit: number;
  /** The `cursor` parameter of a `next` URL, as the client sent it. */
  readonly cursor?: string;
}

export interface Page {
  readonly count: number;
  /** The records' JSON texts, comma-separated, UTF-8 (empty when `count` is 0). */
  readonly json: Buffer;
  /** Whether a record follows this page. */
  readonly more: boolean;
  /** The `cursor` for the `next` URL, from sources that seek by key. */
  readonly cursor?: string;
  /** The version of the tenant's data this page was read at (see {@link Total.version}). */
  readonly version: string;
}

interface Total {
  readonly count: number;
  /**
   * The version of the tenant's data: opaque text that differs whenever the tenant's data may
   * differ (any write of the tenant's data gives a new one), and differs between tenants. The
   * engine may hand out a version older than the data read (never a newer one): a client that
   * compares versions is then at worst sent unchanged data again. Paged reads put it in their ETag.
   */
  readonly version: string;
}

/** A page, or why there is none: the tenant has no such table (404), or the cursor is not one this server issued (400). */
type PageOutcome = Page | 'unknownTable' | 'badCursor';

export type { WrittenItem } from './tenantWrites.js';

/**
 * How a write is made: `idempotencyKey`, the request's `Idempotency-Key` (docs/rules.md#retries):
 * sent again within a day, the write answers what it wrote the first time, writing nothing.
 */
export interface WriteOptions {
  readonly idempotencyKey?: string;
}

/** What an attribution bulk did (see `WriteOutcome`). */
export type BulkOutcome = WriteOutcome<WrittenItem[]>;

/**
 * A read server as `/healthz` shows it: whether reads go to it, how many it served, how often it
 * left the rotation and how many reads it failed (each then served by another server); for a
 * replica, its replay position and how old its data was at the last check (absent while it does
 * not answer), and why it is out of rotation.
 */
export interface ReplicaState {
  readonly name: string;
  readonly inRotation: boolean;
  readonly reads: number;
  readonly removals: number;
  readonly failures: number;
  readonly position?: string;
  readonly lagMs?: number;
  readonly reason?: string;
}

/**
 * A tenant's data section by section, for `export`, in the API's order: users by e-mail
 * address (without regard to case), attributions as the read-backs list them, records and
 * table records by position. Each section comes as chunks of JSON texts, so that memory stays
 * bounded whatever the tenant's size.
 */
export interface DatasetReads {
  metricKeys(): Promise<string[]>;
  dimensionKeys(): Promise<string[]>;
  users(): AsyncIterable<string[]>;
  groupAttributions(): AsyncIterable<string[]>;
  managerAttributions(): AsyncIterable<string[]>;
  reporting(): AsyncIterable<string[]>;
  tables(): Promise<StoredTable[]>;
  tableRecords(key: string): AsyncIterable<string[]>;
}

interface StoredTable {
  key: string;
  name: string;
  /** The fields, in record order. */
  fields: TableField[];
}

/** A data table as discovery lists it. */
export interface TableSummary extends StoredTable {
  recordCount: number;
}

/** The custom fields of a tenant's reporting records: metrics and dimensions in field order, each dimension's groups by name. */
export interface ReportingSchema {
  metricKeys: string[];
  dimensions: { key: string; groups: string[] }[];
}

interface LoadOptions {
  /** Delete the tenant's data first (its API keys stay). */
  replace?: boolean;
  /** Refuse a tenant that already has users or data tables (seeding never mixes two datasets). */
  mustBeEmpty?: boolean;
}

/** A kind of violation `check` reports (its line starts with it). */
export type ViolationKind =
  | 'integrity'
  | 'foreign-keys'
  | 'group-overlap'
  | 'manager-overlap'
  | 'manager-cycle'
  | 'archived-manager'
  | 'dimension-fields'
  | 'positions'
  | 'v2-records';

/** One kind of violation, with the first example found (a sentence naming tenant, user, month). */
export interface Violation {
  readonly kind: ViolationKind;
  readonly example: string;
}

/** `backup` on an engine whose databases are copied with its own tools: the message says which. */
export class BackupUnsupported extends Error {}

/** `compact` on an engine that reuses free space by itself: the message says what to run instead. */
export class CompactUnsupported extends Error {}

/** The tenant of `loadTenant` with `mustBeEmpty` already holds data. */
export class TenantNotEmpty extends Error {}

/**
 * The database was written by a newer build of compdata (its schema version is past the last
 * migration this build knows): serving it could misread or damage data, so it is refused.
 */
export class SchemaTooNew extends Error {
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(`its schema is version ${found}, newer than this build's ${known}: use the compdata that wrote it, or a later one`);
  }
}

/**
 * The store cannot do the work now, through no fault of the request: another writer held the
 * database past the busy timeout, the writer stopped, the database cannot be reached. The
 * client is told to try again (503 with Retry-After); nothing was written.
 */
export class StoreUnavailable extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds = 1,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The write lock was held by another writer (an import, another server) past the busy timeout. */
export class StoreBusy extends StoreUnavailable {}

/**
 * The database has no room for the write: the disk (or file system) that holds it is full.
 * The write's transaction was rolled back, so nothing of it was written; reads go on. Writes
 * succeed again once space is freed: the client is told so (507), and is not told when.
 */
export class StoreFull extends Error {
  constructor(options?: ErrorOptions) {
    super('The disk that holds the database is full: nothing was written. Reads go on; writes succeed again once space is freed.', options);
  }
}

/** The database named by `--db` cannot be opened: the message says which and why. */
export class StoreOpenError extends Error {}

/**
 * The database named by `--db` cannot be opened because the disk that holds it is full; `why`
 * says what the engine could not write.
 */
export class StoreOpenFull extends StoreOpenError {
  constructor(database: string, why: string, options?: ErrorOptions) {
    super(`cannot open database ${database}: the disk that holds it is full (${why}); free space, then try again`, options);
  }
}

/** The database server named by `--db` does not answer (a `StoreOpenError` the CLI reports with exit code 2). */
export class StoreUnreachable extends StoreOpenError {}

/**
 * The database named by `--db` is there but cannot be served by this build: a file that is not
 * a database, a file or directory that cannot be written, a schema newer than this build's
 * (a `StoreOpenError` the CLI reports with exit code 2: the command line names it).
 */
export class StoreUnusable extends StoreOpenError {}

/**
 * The database named by `--db` does not exist (and the caller did not ask to create it): only
 * the commands that load data (`seed`, `import`) create one, so that a typo in `--db` is never
 * served or given keys as an empty database.
 */
export class StoreMissing extends StoreOpenError {
  constructor(readonly path: string) {
    super(`no database at ${path}`);
  }
}

/** How long a write waits for another writer (another process's, or the tenant's on PostgreSQL) before it is refused, unless told. */
export const DEFAULT_WRITE_WAIT_MS = 5000;

/** Where the store reports what goes wrong in the background (pino's signature). */
export interface StoreLog {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}
