import type { Client } from 'openapi-fetch';
import type { paths } from '../../generated/api.js';
import { eitherSignal } from './paging.js';
import { dataOf } from './problemError.js';
import type { BulkItem, BulkResult } from './records.js';
import type { Send } from './retry.js';

/**
 * Items one `PUT /v1/users/groups/bulk` takes: the contract's `maxItems` of
 * `GroupsBulkPutBody.data`. The generated types carry no limits, so this is the one number the
 * client repeats; a test reads it back from `openapi/openapi.yaml` and fails when they differ.
 */
export const BULK_ITEMS_LIMIT = 200;

export interface BulkUpsertOptions {
  signal?: AbortSignal;
  /**
   * Retry this PUT on `503`/`429` (after `Retry-After`) and on network errors, within the
   * client's retry budget; or (`false`) never. Default: the client's `retry.writes` (off).
   * Sending the same items again leaves the same attributions, but a network error leaves it
   * unknown whether the first send was written; and another writer's request may land between.
   */
  retry?: boolean;
}

export interface ChunkOptions extends BulkUpsertOptions {
  /** Items per request, 1 to 200 (default 200). */
  size?: number;
}

/**
 * Thrown by `bulkUpsertInChunks` when a chunk fails. The chunks before it are written (each was
 * its own transaction); the failed one and those after it are not.
 */
export class BulkChunkError extends Error {
  override readonly name = 'BulkChunkError';
  constructor(
    /** What the chunks before the failed one wrote, in request order. */
    readonly written: BulkResult,
    /** Index in `items` of the failed chunk's first item: a problem's pointer `/data/i` names `items[failedAt + i]`. */
    readonly failedAt: number,
    /** Why the chunk failed: a `ProblemError`, or a network or abort error. */
    override readonly cause: unknown,
  ) {
    super(`chunk starting at item ${failedAt} failed, ${written.count} items before it were written: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

export interface BulkUpserts {
  /**
   * Writes up to 200 group and manager items in one request, so in one transaction: all of them
   * or, on any error, none (thrown as a `ProblemError`). More than 200 items are refused before
   * anything is sent (a `RangeError` naming the limit): see `bulkUpsertInChunks`.
   */
  bulkUpsert(items: readonly BulkItem[], options?: BulkUpsertOptions): Promise<BulkResult>;
  /**
   * Writes any number of items as consecutive requests of `size` items. **Each chunk is its own
   * transaction**: when one fails, the chunks before it stay written, and a `BulkChunkError`
   * says which. Two items of one user and slot in different chunks do not get the in-payload
   * overlap check (`422`): the later chunk simply overrides the earlier one's months.
   */
  bulkUpsertInChunks(items: readonly BulkItem[], options?: ChunkOptions): Promise<BulkResult>;
}

export function bulkUpserts(
  api: Client<paths>,
  sends: { default: Send; retried: Send; once: Send },
  clientSignal: AbortSignal | undefined,
): BulkUpserts {
  async function bulkUpsert(items: readonly BulkItem[], options: BulkUpsertOptions = {}): Promise<BulkResult> {
    if (items.length > BULK_ITEMS_LIMIT) {
      throw new RangeError(
        `bulkUpsert sends at most ${BULK_ITEMS_LIMIT} items in one request (got ${items.length}); ` +
          `bulkUpsertInChunks sends more as several requests, each its own transaction`,
      );
    }
    const fetch = options.retry === undefined ? sends.default : options.retry ? sends.retried : sends.once;
    return dataOf(
      await api.PUT('/v1/users/groups/bulk', {
        body: { data: [...items] },
        signal: eitherSignal(options.signal, clientSignal),
        fetch,
      }),
    );
  }

  async function bulkUpsertInChunks(items: readonly BulkItem[], options: ChunkOptions = {}): Promise<BulkResult> {
    const { size = BULK_ITEMS_LIMIT, ...requestOptions } = options;
    if (!Number.isInteger(size) || size < 1 || size > BULK_ITEMS_LIMIT) {
      throw new RangeError(`bulkUpsertInChunks: size must be an integer from 1 to ${BULK_ITEMS_LIMIT} (got ${size})`);
    }
    const written: BulkResult = { count: 0, data: [] };
    for (let start = 0; start < items.length; start += size) {
      try {
        const result = await bulkUpsert(items.slice(start, start + size), requestOptions);
        written.count += result.count;
        written.data.push(...result.data);
      } catch (error) {
        throw new BulkChunkError(written, start, error);
      }
    }
    return written;
  }

  return { bulkUpsert, bulkUpsertInChunks };
}
