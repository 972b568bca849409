import type { Client } from 'openapi-fetch';
import type { components, paths } from '../../generated/api.js';
import { eitherSignal } from './paging.js';
import { ProblemError } from './problemError.js';
import type { Send } from './retry.js';

type Schemas = components['schemas'];
export type UserItem = Schemas['UserPutBodyModel'];
export type UsersResult = Schemas['UsersBulkSuccessResponse'];
export type ManagerItem = Schemas['ManagerAttributionPutBodyModel'];
export type ManagersResult = Schemas['ManagersBulkSuccessResponse'];
export type ArchiveItem = Schemas['ArchiveBulkBody']['data'][number];

/**
 * Items one request of each write takes: the contract's `maxItems` (the generated types carry
 * no limits; a test reads them back from `openapi/openapi.yaml`).
 */
export const USERS_LIMIT = 200;
export const ARCHIVE_LIMIT = 50;

export interface WriteOptions {
  signal?: AbortSignal;
  /**
   * The request's `Idempotency-Key` (docs/rules.md#retries): sent again with it within a day,
   * the write is not made twice, so it is retried (on `503`/`429` and network errors) unless
   * `retry` is `false`.
   */
  idempotencyKey?: string;
  /** Retry this write, or (`false`) never. Default: on with an `idempotencyKey`, else the client's `retry.writes` (off). */
  retry?: boolean;
}

/** `client.users`: `PUT /v1/users/bulk` and `DELETE /v1/users/archive/bulk`, each one request, one transaction. */
export interface UserWrites {
  /** Creates and updates up to 200 users (more: a `RangeError` before anything is sent); the users as stored. */
  bulkUpsert(users: readonly UserItem[], options?: WriteOptions): Promise<UsersResult>;
  /** Archives up to 50 users (more: a `RangeError` before anything is sent). */
  archive(items: readonly ArchiveItem[], options?: WriteOptions): Promise<void>;
}

/** `client.managers`: `PUT /v1/users/managers/bulk`, one request, one transaction. */
export interface ManagerWrites {
  /** Writes up to 200 manager items (more: a `RangeError` before anything is sent); the items echoed. */
  bulkUpsert(items: readonly ManagerItem[], options?: WriteOptions): Promise<ManagersResult>;
}

export type Sends = { default: Send; retried: Send; once: Send };

/**
 * The options for openapi-fetch of a write of `count` items (a `RangeError` past `limit`): its
 * signal, its retries (on with an `Idempotency-Key`), and the header.
 */
export function writeInit(sends: Sends, clientSignal: AbortSignal | undefined, name: string, count: number, limit: number, options: WriteOptions) {
  if (count > limit) throw new RangeError(`${name} sends at most ${limit} items in one request (got ${count})`);
  const retry = options.retry ?? (options.idempotencyKey !== undefined ? true : undefined);
  return {
    signal: eitherSignal(options.signal, clientSignal),
    fetch: retry === undefined ? sends.default : retry ? sends.retried : sends.once,
    params: { header: options.idempotencyKey === undefined ? {} : { 'Idempotency-Key': options.idempotencyKey } },
  };
}

/** The answer's data, or its problem thrown. */
export function answered<T>({ data, error, response }: { data?: T; error?: unknown; response: Response }): T {
  if (data === undefined) throw ProblemError.fromAnswer(error, response);
  return data;
}

/** The writes of users and managers over the client's openapi-fetch client and its sends. */
export function userWrites(api: Client<paths>, sends: Sends, clientSignal: AbortSignal | undefined): { users: UserWrites; managers: ManagerWrites } {
  const init = (name: string, count: number, limit: number, options: WriteOptions) => writeInit(sends, clientSignal, name, count, limit, options);
  return {
    users: {
      bulkUpsert: async (users, options = {}) =>
        answered(await api.PUT('/v1/users/bulk', { body: { data: [...users] }, ...init('users.bulkUpsert', users.length, USERS_LIMIT, options) })),
      archive: async (items, options = {}) =>
        void answered(await api.DELETE('/v1/users/archive/bulk', { body: { data: [...items] }, ...init('users.archive', items.length, ARCHIVE_LIMIT, options) })),
    },
    managers: {
      bulkUpsert: async (items, options = {}) =>
        answered(await api.PUT('/v1/users/managers/bulk', { body: { data: [...items] }, ...init('managers.bulkUpsert', items.length, USERS_LIMIT, options) })),
    },
  };
}
