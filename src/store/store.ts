import { BackupUnsupported, CompactUnsupported, KeyGone, TenantNotEmpty, UnknownTenant } from './vocabulary/storeErrors.js';
import type { Principal, KeyScope, Tenant, KeyInfo, TenantSummary } from './vocabulary/tenancy.js';
import type { Source, ChangedSource, ChangeQuery, ChangeOutcome, PageQuery, Total, PageOutcome, ReplicaState, TableSummary, ReportingSchema, V2Page, V2Query } from './vocabulary/readShapes.js';
import type { WriteOptions, BulkOutcome, WriteOutcome, PendingImport, Pushed, PushItem } from './vocabulary/writeShapes.js';
import type { DatasetReads, KeptCreate, LoadOptions, SandboxExpiry, SandboxMaking, StoredRecipe, Violation } from './vocabulary/adminShapes.js';
import type { LeaseClaim } from './vocabulary/leases.js';
import type { CallAttempt, CallClaim, ClaimedCall } from './vocabulary/deliveryShapes.js';
import type { CallFilter, CallQueue, LoggedAttempt, LoggedCall, ResendOutcome } from './vocabulary/callLogShapes.js';
import type { ArchiveItem } from '../domain/archiveItems.js';
import type { Upsert } from '../domain/bulkItems.js';
import type { StoredImport } from '../domain/importJson.js';
import type { AttributeValue, UserUpsert } from '../domain/userItems.js';
import type { Structure } from '../domain/v2Json.js';
import type { TenantWriter } from './vocabulary/tenantWriter.js';
import type { RequestsInProgress } from './vocabulary/requestsInProgress.js';
import type { TargetStatus } from '../domain/statementLifecycle.js';
import type { EndpointSettings, StatementSelection, StatusChangeOutcome, WebhookEndpoint, WebhookSecrets } from './vocabulary/webhookShapes.js';

/**
 * The boundary between the service and its data, in three roles, each for its own reader; none
 * of them knows which engine is behind it. Every operation is asynchronous, so that an engine may
 * do its work off the event loop (the SQLite engine writes in a thread of its own) or over the
 * network. Built by `openStore` (openStore.ts), the only place that picks an engine.
 */
export interface Store extends RequestStore, AdminStore, ServerStore {}

/**
 * What a request of the public API needs: its key checked, its pages read, its writes made, its
 * imports' status and the service's health. The HTTP handlers see only this.
 */
export interface RequestStore {
  /**
   * The tenant a request's API key grants, or `undefined` for a missing, unknown or revoked key
   * (docs/rules.md#keys). `read`: the request only reads, and may be served by a read replica
   * (one that has replayed past its `consistency` token, when it sends one); without it, the
   * request is served by the primary. The principal then carries the server chosen.
   */
  authenticate(presentedKey: string | undefined, read?: { consistency?: string }): Promise<Principal | undefined>;
  /**
   * Whether the principal's key still grants it. A read's principal may be provisional: on an
   * engine that checks the key inside the read's statement (PostgreSQL, a key checked before by
   * this server), `authenticate` hands it out unchecked, and the read, or this, checks it (a
   * read then throws {@link KeyGone} for a key gone). Any answer to a request other than its
   * read's asks this first (docs/architecture.md#a-request-layer-by-layer); true at once for a
   * principal already checked.
   */
  confirm(principal: Principal): Promise<boolean>;
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
   * `ServerStore.runImport`.
   */
  pushRecords(principal: Principal, push: Omit<PushItem, 'at'>, staged: readonly string[], options?: WriteOptions): Promise<WriteOutcome<Pushed>>;
  /** `GET /v1/imports/{import_id}`: an import of the tenant, read on the primary; `undefined` when it has none with this id. */
  importOf(principal: Principal, id: string): Promise<StoredImport | undefined>;
  /** Discovery: the tenant's data tables (only `key`'s when given), by key, with their fields and record counts. */
  tables(principal: Principal, key?: string): Promise<TableSummary[]>;
  /** Discovery: the custom fields of the tenant's reporting records. */
  reportingSchema(principal: Principal): Promise<ReportingSchema>;
  /** Resolves when the database answers a read. */
  health(): Promise<void>;
}

/**
 * What administration needs: tenants and their keys, loads and exports of a tenant's data, the
 * database's checks, backups and compaction. The CLI's commands and the dataset code use it.
 */
export interface AdminStore {
  /** The tenant named `name`, if there is one. */
  findTenant(name: string): Promise<Tenant | undefined>;
  /**
   * A new key for the tenant (created when missing; with `mustExist`, {@link UnknownTenant} is
   * thrown instead), of `scope` (default `write`); the key itself is only in the answer.
   */
  createKey(tenantName: string, scope?: KeyScope, options?: { mustExist?: boolean }): Promise<{ id: string; key: string }>;
  /** Revokes a key given whole or by id; false when no active key matched. */
  revokeKey(keyOrId: string): Promise<boolean>;
  /** The keys (never their secrets), of one tenant or all. */
  listKeys(tenantName?: string): Promise<KeyInfo[]>;
  /** Up to `limit` tenants whose names sort after `after` (by code point), in that order, with their sizes; one snapshot. */
  listTenants(query: { after?: string; limit: number }): Promise<TenantSummary[]>;
  /**
   * Deletes the tenant named `name` with its keys and all its data, in one transaction (all or
   * nothing); false when there is no such tenant. Its keys are refused from the next request on.
   * With `expiredAt` (milliseconds since the epoch), only a sandbox expired by then: false, nothing
   * changed, for one whose time to live was extended meanwhile (docs/administration.md#time-to-live).
   */
  deleteTenant(name: string, options?: { expiredAt?: number }): Promise<boolean>;
  /**
   * Gives the sandbox `name` a time to live of `ttlSeconds` from `now` (milliseconds since the
   * epoch), or none (`null`), in one transaction: its expiry as stored. `unknown`: no such
   * tenant; `noRecipe`: a tenant not made as a sandbox (nothing changed).
   */
  setSandboxTtl(name: string, ttlSeconds: number | null, now: number): Promise<SandboxExpiry | 'unknown' | 'noRecipe'>;
  /** Up to `limit` names of sandboxes expired at `now` (milliseconds since the epoch), soonest expired first. */
  expiredSandboxes(now: number, limit: number): Promise<string[]>;
  /**
   * Runs `work` with a writer of the tenant `tenantName` (created when missing) inside one
   * transaction: committed when `work` resolves, rolled back when it throws, so that a failed
   * load leaves nothing behind (the tenant's creation included). Readers see the data as it was
   * until the commit.
   */
  loadTenant<T>(tenantName: string, options: LoadOptions, work: (writer: TenantWriter) => Promise<T>): Promise<T>;
  /**
   * Puts a sandbox back as it was made, in one transaction: reads its recipe, deletes its data as
   * a `replace` load does (sync tokens from before it are refused), forgets its idempotency keys,
   * imports and pending webhook calls (its endpoints stay), and fills it again: a copy from its
   * created state kept in the database, any other by `work`, run with the recipe and a writer. Its
   * keys stay; its time to live, if it has one, counts again from the reset.
   * `unknown`: no such tenant; `noRecipe`: a tenant not made as a sandbox (nothing changed).
   */
  resetTenant(tenantName: string, work: (recipe: StoredRecipe, writer: TenantWriter) => Promise<void>): Promise<'reset' | 'unknown' | 'noRecipe'>;
  /**
   * Copies the data of the tenant `template` (never its keys) into the new tenant `target` (made
   * when missing), in one transaction, table by table in the database (INSERT … SELECT, no check
   * run again: the template holds the rules already); false when no tenant is named `template`,
   * {@link TenantNotEmpty} when `target` has data. With `recipe`, `target` is a sandbox whose
   * created state is kept in the database for its reset (docs/administration.md#reset), and with
   * `sandbox`, its key, its time to live and the answer kept for a retry are set in the same transaction.
   */
  copyTenant(template: string, target: string, options?: { recipe?: string; sandbox?: SandboxMaking }): Promise<boolean>;
  /**
   * Changes the status of the statements `selection` takes to `to`, as the lifecycle allows
   * (docs/rules.md#statements), in one transaction with the webhook calls the change raises: every
   * statement listed changes, or none (`refused`, `missing`); a user's or a period's are those
   * whose status may change to `to`.
   */
  changeStatementStatus(tenantName: string, to: TargetStatus, selection: StatementSelection): Promise<StatusChangeOutcome>;
  /** A new webhook endpoint of the tenant, with its secrets (shown only here and at rotation). */
  createWebhookEndpoint(tenantName: string, settings: EndpointSettings): Promise<(WebhookEndpoint & WebhookSecrets) | 'unknownTenant'>;
  /** The tenant's webhook endpoints, by id, without their secrets. */
  listWebhookEndpoints(tenantName: string): Promise<WebhookEndpoint[] | 'unknownTenant'>;
  /** Changes the settings given of an endpoint; the endpoint as it is then. */
  updateWebhookEndpoint(tenantName: string, id: string, settings: Partial<EndpointSettings>): Promise<WebhookEndpoint | 'unknownTenant' | 'unknownEndpoint'>;
  /** Deletes an endpoint with its calls. */
  deleteWebhookEndpoint(tenantName: string, id: string): Promise<'deleted' | 'unknownTenant' | 'unknownEndpoint'>;
  /** New secrets for an endpoint; the ones they replace stay valid for `graceSeconds`. */
  rotateWebhookSecrets(tenantName: string, id: string, graceSeconds: number): Promise<(WebhookEndpoint & WebhookSecrets) | 'unknownTenant' | 'unknownEndpoint'>;
  /** Up to `limit` of the tenant's webhook calls whose `seq` is below `before` (all when absent), newest first, those `filter` takes. */
  listWebhookCalls(tenantName: string, filter: CallFilter, page: { before?: number; limit: number }): Promise<LoggedCall[] | 'unknownTenant'>;
  /** A webhook call of the tenant with its attempts, in order. */
  webhookCall(tenantName: string, id: string): Promise<{ call: LoggedCall; attempts: LoggedAttempt[] } | 'unknownTenant' | 'unknownCall'>;
  /**
   * Sends a delivered or failed call again (docs/administration.md#the-log-of-calls): pending and
   * due now, with the same `webhook-id`, a fresh series of attempts; in one transaction.
   */
  resendWebhookCall(tenantName: string, id: string): Promise<ResendOutcome | 'unknownTenant'>;
  /**
   * The answer a sandbox create kept under `lookup` (`LoadOptions.sandbox`), unless kept longer
   * than the public API's idempotency keys are (docs/rules.md#retries); a read, writing nothing.
   */
  keptCreate(lookup: string): Promise<Omit<KeptCreate, 'lookup'> | undefined>;
  /** How much the tenant named holds (as its listing counts it); `undefined` when there is no such tenant. */
  tenantSizes(tenantName: string): Promise<Omit<TenantSummary, 'name' | 'createdAt'> | undefined>;
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
}

/**
 * What the server's own background work and lifecycle need: running the imports that pushes
 * scheduled, the count of requests in progress that background work gives way to, the
 * database's size for metrics, and closing.
 */
export interface ServerStore {
  /** Every tenant's unfinished imports (imports/importRunner.ts). */
  pendingImports(): Promise<PendingImport[]>;
  /**
   * Runs an import for the server `owner`: claims it (a scheduled one once due, a started one of
   * `owner`'s, or of the server `replaces` names as gone), then each of its tables left in a
   * transaction of its own, then marks it finished. A table whose transaction fails is recorded
   * as failed (a full disk: `StorageError`); a store that cannot write now throws, and the
   * import stays as it is for a later run.
   */
  runImport(pending: PendingImport, owner: string, replaces?: { owner: string | null; heartbeatAt: number | null }): Promise<void>;
  /**
   * The requests of the server that serves this store, counted by it (admission) in memory the
   * store's threads share: its background work gives way to them (on PostgreSQL, imports).
   */
  readonly requestsInProgress: RequestsInProgress;
  /**
   * Takes or renews a lease of background work that one server of the database does at a time
   * (the sandbox sweeper's), in one statement that compares and sets: true when `claim.owner`
   * holds it until `claim.until`; false when another owner's lease lasts past `claim.now`.
   */
  takeLease(claim: LeaseClaim): Promise<boolean>;
  /** Gives the lease `name` up, when `owner` holds it (a server that stops), so that another may take it at once. */
  releaseLease(name: string, owner: string): Promise<void>;
  /**
   * Claims up to `claim.limit` webhook calls due at `claim.now` for `claim.owner` until
   * `claim.until` (docs/administration.md#delivery), each in a transaction of its tenant with what
   * its attempt is made of as it is then. A call claimed by another owner whose lease lasts past
   * `claim.now` is not taken; one whose lease ended is.
   */
  claimWebhookCalls(claim: CallClaim): Promise<ClaimedCall[]>;
  /** Records an attempt of a call and the call's new state, in one transaction; nothing when the call is gone (its endpoint or tenant deleted). */
  recordWebhookAttempt(attempt: CallAttempt): Promise<void>;
  /** The pending webhook calls across tenants and since when the oldest waits, for `/metrics`. */
  webhookQueue(): Promise<CallQueue>;
  /** Bytes the database takes (SQLite: the file and its WAL; PostgreSQL: the whole database), for `/metrics`. */
  databaseBytes(): Promise<number>;
  /** Finishes the writes in progress and releases the database (for SQLite: the WAL folded into the file). */
  close(): Promise<void>;
}
