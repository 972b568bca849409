import type { WriteSteps } from './transactionSteps.js';
import type { EngineReads, KeySteps } from './readSteps.js';
import type { SnapshotSteps } from './snapshotSteps.js';
import type { KeyedReads } from './keyedReads.js';
import type { TenantWrite, WriteOutcome, WrittenBy } from '../vocabulary/writeShapes.js';

/**
 * What an engine supplies to the one store (../storeOver.ts): its SQL as typed steps, its
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
   * from its sockets for long (../requests/fairQueue.ts).
   */
  readonly synchronousReads: boolean;
  /**
   * A number that changes whenever a transaction has been committed on the database since it
   * was last read, by any connection of any process, except by the engine's own read
   * connection (SQLite's `PRAGMA data_version`). Read on every request, so it must be cheap and
   * synchronous. The store then remembers key checks while it stays (../requests/rememberedKeys.ts);
   * absent (PostgreSQL), every request looks its key up.
   */
  readonly changeCounter?: () => number;
  /**
   * Reads with the key check in their statement (./keyedReads.ts), on an engine whose every
   * statement is a round trip (PostgreSQL); absent, a read's key is looked up first.
   */
  readonly keyedReads?: KeyedReads;
  /**
   * A write of the API into one tenant (the bulks): `runTenantWrite` (../writes/runTenantWrite.ts) over the
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
   * serves a read is the store's choice (../requests/readRouting.ts).
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
