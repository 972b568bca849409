import type { ReportingFilter } from '../../domain/reportingFilter.js';
import type { PagedSource, KeyedRow } from './pagedSource.js';
import type { StoredImport } from '../../domain/importJson.js';
import type { KeyInfo, KeyScope, Tenant } from '../vocabulary/tenancy.js';
import type { ReportingSchema } from '../vocabulary/readShapes.js';
import type { PendingImport } from '../vocabulary/writeShapes.js';
import type { Answer } from '../vocabulary/answer.js';
import type { KeptCreate } from '../vocabulary/adminShapes.js';
import type { resumeBounds } from '../../domain/syncToken.js';
import type { DueCall } from './deliverySteps.js';
import type { CallQueue } from '../vocabulary/callLogShapes.js';
/** The reads of the service, on one connection (or pool). Filters naming nothing stored give an empty listing. */
export interface EngineReads {
  findTenant(name: string): Answer<Tenant | undefined>;
  /** Up to `limit` tenants whose names sort after `after` (by code point; all when `null`), in that order. */
  tenantsAfter(after: string | null, limit: number): Answer<TenantRow[]>;
  /** What the tenant holds: its users counted, its records from their dense positions (one read). */
  tenantSizes(tenantId: number): Answer<TenantSizes>;
  /** Up to `limit` names of sandboxes whose `expires_at` is at or before `now` (ISO 8601), soonest expired first. */
  expiredSandboxes(now: string, limit: number): Answer<string[]>;
  /**
   * Up to `limit` webhook calls pending, due at `now` (ISO 8601) and not claimed by a lease
   * lasting past it, across tenants, soonest due first; each only when no call of the same
   * statement to the same endpoint written before it is pending (docs/rules.md#webhook-delivery).
   */
  dueWebhookCalls(now: string, limit: number): Answer<DueCall[]>;
  /** The pending webhook calls across tenants, counted along the index of pending calls. */
  webhookQueue(): Answer<CallQueue>;
  /** The answer a sandbox create kept under `lookup`, unless kept before `since` (milliseconds). */
  keptCreate(lookup: string, since: number): Answer<Omit<KeptCreate, 'lookup'> | undefined>;
  /** The tenant's statement reporting records (`emptyFragment`: see {@link StoredKey}). */
  reporting(tenantId: number, emptyFragment: string): PagedSource;
  filteredReporting(tenantId: number, emptyFragment: string, filter: ReportingFilter): Answer<PagedSource>;
  /** The records of a data table; `undefined` when the tenant has no such table. */
  tableRecords(tenantId: number, tableKey: string): Answer<PagedSource | undefined>;
  groupAttributions(tenantId: number, filter: GroupFilter): Answer<PagedSource>;
  managerAttributions(tenantId: number, filter: ManagerFilter): Answer<PagedSource>;
  reportingChanges(tenantId: number, emptyFragment: string): ChangeReads;
  tableChanges(tenantId: number, tableKey: string): Answer<ChangeReads | undefined>;
  tables(tenantId: number, key?: string): Answer<TableRow[]>;
  reportingSchema(tenantId: number): Answer<ReportingSchema>;
  /** The tenant's statements as the v2 reads page them. */
  v2Statements(tenantId: number): V2Reads;
  /** A data table's records as the v2 reads page them; `undefined` when the tenant has no such table. */
  v2TableRecords(tenantId: number, tableKey: string): Answer<V2Reads | undefined>;
  /** An import of the tenant with its tables (one snapshot), if any. */
  importOf(tenantId: number, id: string): Answer<StoredImport | undefined>;
  /** Every tenant's unfinished imports, oldest first (the background imports' work). */
  pendingImports(): Answer<PendingImport[]>;
}

/** A tenant of the directory, with its creation time as stored. */
export interface TenantRow extends Tenant {
  createdAt: string;
}

/** How much a tenant holds, and when it expires (see `TenantSummary`). */
export interface TenantSizes {
  users: number;
  reportingRecords: number;
  tableRecords: number;
  expiresAt: string | null;
}

/** A data table as stored: its fields as the JSON text of `[{key, type}, ...]`; with its record count where listed. */
export interface TableRow {
  key: string;
  name: string;
  fieldsJson: string;
  recordCount?: number;
}

/** A stored API key, with what a request of its tenant needs to know at once. */
export interface StoredKey {
  readonly secretHash: Buffer;
  readonly revoked: boolean;
  readonly tenantId: number;
  /** The dimension fields of a record whose user holds no group (kept with the tenant). */
  readonly emptyFragment: string;
  /** The tenant's data version as stored (see `Total.version`). */
  readonly dataVersion: string;
  readonly scope: KeyScope;
}

export interface KeySteps {
  /** Read on every request, so that a revocation by another process counts at once. */
  lookup(id: string): Answer<StoredKey | undefined>;
  /** Revokes an active key; false when there is none with this id. */
  revoke(id: string, revokedAt: string): Answer<boolean>;
  /** The keys of one tenant or all, by creation. */
  list(tenantName: string | undefined): Answer<KeyInfo[]>;
}

/**
 * The paging of the read-back extensions (`GET /v1/users/groups`, `GET /v1/users/managers`),
 * whatever the engine. Attributions have no dense positions, so a page is found by key when
 * the caller brings the key of the row before it (the `cursor` of `next`), and by position for
 * a raw offset (see SKIPPED_AT_MOST). An engine supplies the reads of one listing, narrowed to
 * the request's filters, in the listing's order: the user's e-mail address without regard to
 * ASCII case, then for groups the dimension key (binary) and the first month, for managers the
 * first month with "since always" first; the row's primary key breaks any tie left.
 */
export interface ListingReads {
  /** Up to `n` rows from position `from`, skipping the rows before it. */
  at(from: number, n: number): Promise<KeyedRow[]> | KeyedRow[];
  /** Up to `n` rows from the first row of the user with this e-mail address, skipping `skip` rows. */
  fromUser(email: string, skip: number, n: number): Promise<KeyedRow[]> | KeyedRow[];
  /** Each user with rows in the listing, in order: e-mail address and number of rows. */
  perUser(): Promise<Iterable<[string, number]>> | Iterable<[string, number]>;
  /** Up to `n` rows after the row whose key values are `key` (checked by the listing's `isKey`). */
  after(key: readonly unknown[], n: number): Promise<KeyedRow[]> | KeyedRow[];
  total(): Promise<number> | number;
}

/** The filters of `GET /v1/users/groups`. */
export interface GroupFilter {
  /** E-mail address of the user, compared without regard to ASCII case. */
  user?: string;
  /** Dimension key. */
  dimension?: string;
}

/** The filter of `GET /v1/users/managers`. */
export interface ManagerFilter {
  user?: string;
}

/** A record in change order: its position (stamp, stream, a, b, c) and its JSON text. */
export type ChangeRow = [stamp: number, stream: 0 | 1, a: number, b: number, c: number, json: string];

/** Where each stream of the change order resumes (see `resumeBounds`). */
export type ResumeBounds = ReturnType<typeof resumeBounds>;

/**
 * What an engine supplies for incremental sync of one listing: the tenant's change counter and
 * the stamp of its last replace, and the records after a position, in change order, read in
 * one statement (one snapshot).
 */
export interface ChangeReads {
  state(): Answer<{ seq: number; resyncFrom: number }>;
  /** Up to `n` records after the bounds, in change order, each once (at its latest change). */
  rows(bounds: ResumeBounds, n: number): Answer<ChangeRow[]>;
}

/**
 * What an engine supplies for the v2 reads of one structure (the statements of a tenant, or a
 * data table): its records in v1's order (position), rendered as v2 writes them with the time of
 * their last change, read by seeking to a position; and where a record id stands.
 */
export interface V2Reads {
  /** The position of the record `id`, or of where it stood when a replace deleted it; `undefined` when no record of the structure ever had it. */
  positionOf(id: string): Answer<number | undefined>;
  /** The records at positions `from`..`from + n - 1`, joined by commas, and whether a record follows. */
  joined(from: number, n: number): Answer<{ count: number; json: Buffer; more: boolean }>;
  /** The id of the record at `position` (read apart from the page: taking it in the page's statement costs more). */
  idAt(position: number): Answer<string>;
  /** Up to `n` records from position `from` whose time of last change is after `after` and before `before` (stored times), in order, each as [json, id]. */
  changedBetween(from: number, after: string, before: string, n: number): Answer<[json: string, id: string][]>;
}

/**
 * The paging of filtered statement reporting records (`GET /v1/reporting?user=...`), whatever
 * the engine. The records that match keep the order of the unfiltered read (by position), but
 * not its dense positions: a walk by `next` seeks past the position of the last record of the
 * page before (the key in the cursor), on an index that holds the matching records in position
 * order, so that every page costs what the first does. A raw `offset` without a cursor skips
 * that many matching records.
 *
 * An engine supplies one read: up to `n` matching records at positions after `after`, skipping
 * the first `skip` of them, each with its position as its key.
 */
export interface FilteredReads {
  rows(after: number, skip: number, n: number): Promise<KeyedRow[]> | KeyedRow[];
  total(): Promise<number> | number;
}
