import type { ArchiveItem } from '../domain/archiveItems.js';
import type { RulesBroken, Upsert } from '../domain/bulkItems.js';
import type { AttributeValue, UserUpsert } from '../domain/userItems.js';
import { bulkUpsertWith, type BulkSteps } from './bulkUpsert.js';
import { keyReused, REMEMBERED_FOR_MS, type IdempotencySteps, type IdempotentRequest } from './idempotency.js';
import {
  claimWith,
  failTableWith,
  finishWith,
  importTableWith,
  pushWith,
  type ImportClaim,
  type ImportRunSteps,
  type ImportTask,
  type Pushed,
  type PushItem,
} from './tableImports.js';
import { archiveUsersWith, type ArchiveSteps } from './userArchive.js';
import { upsertUsersWith, type UserSteps } from './userUpsert.js';

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
  /** The steps of an import in the background (tableImports.ts), one task each. */
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

/** The steps of each kind of write, for one tenant inside one write transaction of an engine. */
export interface TenantWriteSteps {
  attributions(): BulkSteps<unknown>;
  users(): UserSteps;
  archive(): ArchiveSteps;
  idempotency(): IdempotencySteps;
  imports(): ImportRunSteps;
}

/**
 * Runs `write` over the engine's steps: every rule of every write is here and below, none in an
 * engine. A write with an `Idempotency-Key` the tenant sent within a day is not run again: the
 * same request gets what the first one wrote, another request with that key a `422`. A written
 * outcome is remembered in the write's own transaction, so that it is remembered exactly when
 * it was written.
 */
export async function runTenantWrite<W extends TenantWrite>(steps: TenantWriteSteps, write: W): Promise<WriteOutcome<WrittenBy<W>>> {
  const request = write.idempotency;
  if (!request) return runOnce(steps, write);
  const remembered = steps.idempotency();
  const earlier = await remembered.recall(request.key, request.at - REMEMBERED_FOR_MS);
  if (earlier) {
    if (earlier.fingerprint !== request.fingerprint) return { broken: keyReused(request.key) };
    return { written: JSON.parse(earlier.written) as WrittenBy<W>, replayed: true };
  }
  const outcome = await runOnce(steps, write);
  if ('written' in outcome) await remembered.remember(request, JSON.stringify(outcome.written));
  return outcome;
}

function runOnce<W extends TenantWrite>(steps: TenantWriteSteps, write: W): Promise<WriteOutcome<WrittenBy<W>>> {
  switch (write.kind) {
    case 'attributions':
      return bulkUpsertWith(steps.attributions(), write.items) as Promise<WriteOutcome<WrittenBy<W>>>;
    case 'users':
      return upsertUsersWith(steps.users(), write.items) as Promise<WriteOutcome<WrittenBy<W>>>;
    case 'archive':
      return archiveUsersWith(steps.archive(), write.items) as Promise<WriteOutcome<WrittenBy<W>>>;
    case 'push':
      return pushWith(steps.imports().imports, write.items[0]!, write.staged ?? []) as Promise<WriteOutcome<WrittenBy<W>>>;
    case 'importClaim':
      return claimWith(steps.imports().imports, write.items[0]!) as Promise<WriteOutcome<WrittenBy<W>>>;
    case 'importTable':
      return importTableWith(steps.imports(), write.items[0]!) as Promise<WriteOutcome<WrittenBy<W>>>;
    case 'importFailed':
      return failTableWith(steps.imports().imports, write.items[0]!) as Promise<WriteOutcome<WrittenBy<W>>>;
    case 'importFinish':
      return finishWith(steps.imports().imports, write.items[0]!) as Promise<WriteOutcome<WrittenBy<W>>>;
  }
}
