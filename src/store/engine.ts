import type { ReportingFilter } from '../domain/reportingFilter.js';
import type { InvariantReads } from './invariantCheck.js';
import type { LoadSteps } from './loading/loadSteps.js';
import type { GroupFilter, ManagerFilter } from './paging/attributionListing.js';
import type { ChangeReads } from './paging/changePaging.js';
import type { PagedSource } from './paging/pagedSource.js';
import type { V2Reads } from './paging/v2Paging.js';
import type { StoredImport } from '../domain/importJson.js';
import type { KeyInfo, KeyScope, ReportingSchema, Tenant } from './store.js';
import type { PendingImport } from './tableImports.js';
import type { TenantWrite, WriteOutcome, WrittenBy } from './tenantWrites.js';

/** An answer that may come at once (SQLite reads on the calling thread) or later (over the network). */
export type Answer<T> = T | Promise<T>;

/**
 * `next` applied to `answer`: at once when it came at once, so that a chain of synchronous reads
 * runs to its end in the caller's turn (see {@link Engine.synchronousReads}).
 */
export function after<T, U>(answer: Answer<T>, next: (value: T) => Answer<U>): Answer<U> {
  return answer instanceof Promise ? answer.then(next) : next(answer);
}

/**
 * What an engine supplies to the one store (engineStore.ts): its SQL as typed steps, its
 * connections and transactions, and its driver's errors in the store's terms. Every rule of
 * the service is above this line; an engine decides only how to ask its database.
 */
export interface Engine {
  /** Reads on the engine's shared connection (SQLite) or pool (PostgreSQL). */
  readonly reads: EngineReads;
  readonly keys: KeySteps;
  /** Whether the engine's text can hold U+0000 (SQLite's can; PostgreSQL's cannot). */
  readonly textHoldsNul: boolean;
  /**
   * Whether reads run synchronously on the calling thread (SQLite). The store then takes them
   * in turns through a fair queue, so that a burst of page reads never keeps the event loop
   * from its sockets for long (fairQueue.ts).
   */
  readonly synchronousReads: boolean;
  /**
   * A number that changes whenever a transaction has been committed on the database since it
   * was last read, by any connection of any process, except by the engine's own read
   * connection (SQLite's `PRAGMA data_version`). Read on every request, so it must be cheap and
   * synchronous. The store then remembers key checks while it stays (rememberedKeys.ts);
   * absent (PostgreSQL), every request looks its key up.
   */
  readonly changeCounter?: () => number;
  /**
   * A write of the API into one tenant (the bulks): `runTenantWrite` (tenantWrites.ts) over the
   * engine's steps, inside one write transaction that serialises the tenant's writers.
   */
  write<W extends TenantWrite>(tenantId: number, write: W): Promise<WriteOutcome<WrittenBy<W>>>;
  /**
   * Runs `work` in one write transaction on a connection of its own that spans its awaits:
   * committed when `work` resolves, rolled back when it throws.
   */
  inWriteTransaction<T>(work: (steps: WriteSteps) => Promise<T>): Promise<T>;
  /** Runs `work` over one snapshot of the database, on a connection of its own. */
  inSnapshot<T>(work: (steps: SnapshotSteps) => Promise<T>): Promise<T>;
  /** Resolves when the database answers a read. */
  health(): Promise<void>;
  /** Bytes the database takes on disk. */
  databaseBytes(): Promise<number>;
  /** See `Store.distribution`; absent on an engine of one server. */
  distribution?(): Promise<string | undefined>;
  /** See `Store.backup`. */
  backup(target: string): Promise<void>;
  /** See `Store.compact` (without the sizes). */
  compact(): Promise<void>;
  close(): Promise<void>;
  /** The driver's error as the store's (`StoreBusy`, `StoreFull`, `StoreUnavailable`), or as it is. */
  storeError(error: unknown): unknown;
  /**
   * Servers that answer reads besides the one written to (PostgreSQL's streaming replicas,
   * `--db-replica`), each over a pool of its own; none on an engine without them. Which of them
   * serves a read is the store's choice (readRouting.ts).
   */
  readonly replicas: readonly ReplicaServer[];
  /**
   * The position of the written server's log now, past every write committed before the call
   * (the consistency token of a write's answer); absent on an engine without replicas' logs.
   */
  logPosition?(): Promise<bigint>;
}

/** A server that answers reads from a copy of the written server's data, as far as it has replayed its log. */
export interface ReplicaServer {
  /** How logs, `/healthz` and the answers' `Compdata-Served-By` name it: `replica-1`, `replica-2`, … */
  readonly name: string;
  readonly reads: EngineReads;
  readonly keys: Pick<KeySteps, 'lookup'>;
  /** The position of the written server's log up to which this server has replayed (and shows to its reads). */
  replayed(): Promise<bigint>;
  close(): Promise<void>;
}

/** The reads of the service, on one connection (or pool). Filters naming nothing stored give an empty listing. */
export interface EngineReads {
  findTenant(name: string): Answer<Tenant | undefined>;
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

/** A key to store: its id, tenant, the hash of its secret, when and for what it was made. */
export interface NewKey {
  readonly id: string;
  readonly tenantId: number;
  readonly secretHash: Buffer;
  readonly createdAt: string;
  readonly scope: KeyScope;
}

/** The steps of a write transaction (a load, a new key). */
export interface WriteSteps {
  /** The tenant named `name`, created when missing. */
  ensureTenant(name: string): Answer<Tenant>;
  /** Holds the tenant's write lock until the transaction ends (nothing to do where the transaction holds the database's one write lock). */
  lockTenant(tenantId: number): Answer<void>;
  /** Whether the tenant holds users or data tables (keys alone do not count). */
  hasData(tenantId: number): Answer<boolean>;
  /** Deletes the tenant's data, keeping the tenant and its API keys. */
  deleteData(tenantId: number): Answer<void>;
  /** The tenant's data changes in this transaction: a new data version. */
  dataChanged(tenantId: number): Answer<void>;
  /**
   * The stamp of this transaction's changes of the tenant (the next of its change counter);
   * `replace`: tokens issued before it call for a new sync from the start.
   */
  nextStamp(tenantId: number, replace: boolean): Answer<number>;
  insertKey(key: NewKey): Answer<void>;
  /** The steps of loading data into the tenant. */
  loadSteps(tenantId: number): LoadSteps;
}

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

/** What `export` reads besides the paged listings. */
export interface DatasetSteps {
  metricKeys(tenantId: number): Answer<string[]>;
  dimensionKeys(tenantId: number): Answer<string[]>;
  /** Up to `n` users by e-mail address (without regard to ASCII case), after the one whose key is `after` (`''`: from the first): each one's key and stored JSON. */
  usersAfter(tenantId: number, after: string, n: number): Answer<ExportedUser[]>;
  tables(tenantId: number): Answer<TableRow[]>;
  emptyFragment(tenantId: number): Answer<string>;
}
