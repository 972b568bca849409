import type { ArchiveItem } from '../domain/archiveItems.js';
import type { RulesBroken, Upsert } from '../domain/bulkItems.js';
import type { AttributeValue, UserUpsert } from '../domain/userItems.js';
import { bulkUpsertWith, type BulkSteps } from './bulkUpsert.js';
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
}

/** A write of the API into one tenant, as plain data (it crosses to SQLite's writer thread). */
export type TenantWrite = { [K in keyof WriteKinds]: { readonly kind: K; readonly items: readonly WriteKinds[K]['items'][] } }[keyof WriteKinds];

/** What a write of kind `K` answers once written. */
export type WrittenBy<W extends TenantWrite> = WriteKinds[W['kind']]['written'];

/**
 * What a write did: everything written (and, on an engine with read replicas, the consistency
 * token of the commit), or nothing written and the rules broken; and `lockWaitMs`, how long it
 * waited for the write lock, from its arrival at the store until its transaction held the lock
 * (absent when it was refused before it asked for the lock).
 */
export type WriteOutcome<T> = ({ readonly written: T; readonly consistency?: string } | { readonly broken: RulesBroken }) & { readonly lockWaitMs?: number };

/** The steps of each kind of write, for one tenant inside one write transaction of an engine. */
export interface TenantWriteSteps {
  attributions(): BulkSteps<unknown>;
  users(): UserSteps;
  archive(): ArchiveSteps;
}

/** Runs `write` over the engine's steps: every rule of every write is here and below, none in an engine. */
export function runTenantWrite<W extends TenantWrite>(steps: TenantWriteSteps, write: W): Promise<WriteOutcome<WrittenBy<W>>> {
  switch (write.kind) {
    case 'attributions':
      return bulkUpsertWith(steps.attributions(), write.items) as Promise<WriteOutcome<WrittenBy<W>>>;
    case 'users':
      return upsertUsersWith(steps.users(), write.items) as Promise<WriteOutcome<WrittenBy<W>>>;
    case 'archive':
      return archiveUsersWith(steps.archive(), write.items) as Promise<WriteOutcome<WrittenBy<W>>>;
  }
}
