
import type { ImportError } from '../../domain/importJson.js';
import type { ArchiveItem } from '../../domain/archiveItems.js';
import type { Upsert, RulesBroken } from '../../domain/bulkItems.js';
import type { AttributeValue, UserUpsert } from '../../domain/userItems.js';
/**
 * How a write is made: `idempotencyKey`, the request's `Idempotency-Key` (docs/rules.md#retries):
 * sent again within a day, the write answers what it wrote the first time, writing nothing.
 */
export interface WriteOptions {
  readonly idempotencyKey?: string;
}

/** What an attribution bulk did (see `WriteOutcome`). */
export type BulkOutcome = WriteOutcome<WrittenItem[]>;

/** An item written by the attribution bulks: the e-mail addresses of its users as stored (for the echo). */
export interface WrittenItem {
  readonly user: string;
  readonly manager?: string;
}

/** What each kind of write takes and what it answers once written. */
interface WriteKinds {
  /** `PUT /v1/users/groups/bulk` and `PUT /v1/users/managers/bulk`. */
  attributions: { items: Upsert; written: WrittenItem[] };
  /** `PUT /v1/users/bulk`: the users as stored. */
  users: { items: UserUpsert; written: Record<string, AttributeValue>[] };
  /** `DELETE /v1/users/archive/bulk`: the number of users archived. */
  archive: { items: ArchiveItem; written: number };
  /** `POST /v1/tables/{data_table_key}/records/bulk`: one push, its lines in the write's `staged` chunks; the import it joined. */
  push: { items: PushItem; written: Pushed };
  /** The steps of an import in the background (../imports/tableImports.ts), one task each. */
  importClaim: { items: ImportTask; written: ImportClaim };
  importTable: { items: ImportTask & { table: string }; written: 'imported' | 'notMine' };
  importFailed: { items: ImportTask & { table: string; error: NonNullable<ImportTask['error']> }; written: 'imported' | 'notMine' };
  importFinish: { items: ImportTask; written: boolean };
}

/**
 * A write of the API into one tenant, as plain data (it crosses to SQLite's writer thread);
 * `idempotency`: the request's `Idempotency-Key`; `staged`: a push's lines, as JSON array texts.
 */
export type TenantWrite = {
  [K in keyof WriteKinds]: {
    readonly kind: K;
    readonly items: readonly WriteKinds[K]['items'][];
    readonly idempotency?: IdempotentRequest;
    readonly staged?: readonly string[];
  };
}[keyof WriteKinds];

/** What a write of kind `K` answers once written. */
export type WrittenBy<W extends TenantWrite> = WriteKinds[W['kind']]['written'];

/**
 * What a write did: everything written (and, on an engine with read replicas, the consistency
 * token of the commit), or nothing written and the rules broken; and `lockWaitMs`, how long it
 * waited for the write lock, from its arrival at the store until its transaction held the lock
 * (absent when it was refused before it asked for the lock). `replayed`: the written outcome
 * of an earlier request with the same `Idempotency-Key`, nothing written now.
 */
export type WriteOutcome<T> = ({ readonly written: T; readonly consistency?: string; readonly replayed?: boolean } | { readonly broken: RulesBroken }) & {
  readonly lockWaitMs?: number;
};

/** A write's `Idempotency-Key`, what it was sent with, and when it arrived (milliseconds since the epoch). */
export interface IdempotentRequest {
  readonly key: string;
  /** The operation and its items, hashed: the same key sent with anything else is refused. */
  readonly fingerprint: string;
  readonly at: number;
}

/** A push, as it reaches the store (its lines are in the write's `staged` chunks). */
export interface PushItem {
  readonly table: string;
  readonly all: boolean;
  /** Seconds before the import may start. */
  readonly debounce: number;
  readonly lines: number;
  /** A hash of the lines pushed (the request's fingerprint, without hashing them again). */
  readonly digest: string;
  /** Milliseconds since the epoch. */
  readonly at: number;
}

/** What a push answers: the import it joined or made. */
export interface Pushed {
  readonly import_id: string;
}

/** A step of an import run by a server (`owner`) at `at`. */
export interface ImportTask {
  readonly importPk: number;
  readonly owner: string;
  readonly at: number;
  /** The table of the step, for the steps of one table. */
  readonly table?: string;
  /** Why the table failed, for a failure recorded after its transaction was rolled back. */
  readonly error?: ImportError;
  /** For a claim: a started import's server, as found gone (stopped, or silent past the lease): taken over unless it spoke since. */
  readonly replaces?: { readonly owner: string | null; readonly heartbeatAt: number | null };
}

/** Where an import stands for the server that asked: its tables to import, or why it has nothing to do. */
export type ImportClaim = { readonly tables: readonly string[] } | 'notDue' | 'notMine' | 'finished';

/** An unfinished import, as a server looks for work (every tenant's). */
export interface PendingImport {
  readonly tenantId: number;
  readonly importPk: number;
  readonly status: 'scheduled' | 'started';
  readonly launchAt: number;
  readonly owner: string | null;
  readonly heartbeatAt: number | null;
}

/**
 * Imports of data tables (docs/rules.md#table-imports), whatever the engine. A push is stored
 * at once (the import's row, its tables, and the pushed lines as JSON text), in the push's
 * transaction; the import then runs in the background, a table per transaction: the table's
 * records and its finished state commit together, so that a table is imported whole or not at
 * all, and never twice. The import's row is written before any data: its last word (a full
 * disk) is an update of rows already there.
 */

/** Lines per stored chunk of a push. */
export const LINES_PER_CHUNK = 1000;
