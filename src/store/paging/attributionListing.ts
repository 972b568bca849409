import type { ListingReads } from '../engine/readSteps.js';
import type { KeyedRow, PagedSource } from '../engine/pagedSource.js';

/** The earliest month: stands for "since always" in the order and in keys (never in rows). */
export const SINCE_ALWAYS = Number.MIN_SAFE_INTEGER;

/**
 * Rows a raw `offset` skips one by one; past that, the server counts each user's rows (from an
 * index only, like `limit=0`) to find the user the offset falls in, and skips only within that
 * user's rows.
 */
const SKIPPED_AT_MOST = 10_000;

/** A listing as a paged source; `isKey` tells the keys this listing issues from any other text. */
export function listingSource(reads: ListingReads, isKey: (key: unknown) => key is unknown[]): PagedSource {
  const keyedRows = async (from: number, n: number): Promise<KeyedRow[]> => {
    if (from <= SKIPPED_AT_MOST) return reads.at(from, n);
    const landing = userAt(await reads.perUser(), from);
    return landing ? reads.fromUser(landing.email, from - landing.before, n) : [];
  };
  return {
    rows: async (from, n) => (await keyedRows(from, n)).map(([row]) => row),
    total: () => reads.total(),
    seek: {
      keyedRows,
      async rowsAfter(key, n) {
        const values = parseKey(key, isKey);
        return values && reads.after(values, n);
      },
    },
  };
}

/** A listing without rows (a filter names a user or dimension the tenant does not have). */
export const EMPTY_LISTING: PagedSource = {
  rows: () => [],
  total: () => 0,
  seek: { keyedRows: () => [], rowsAfter: () => [] },
};

/** The user (in listing order) whose rows hold position `from`, and the number of rows before theirs. */
function userAt(counts: Iterable<[string, number]>, from: number): { email: string; before: number } | undefined {
  let before = 0;
  for (const [email, count] of counts) {
    if (before + count > from) return { email, before };
    before += count;
  }
  return undefined;
}

function parseKey(text: string, isKey: (key: unknown) => key is unknown[]): unknown[] | undefined {
  try {
    const key = JSON.parse(text) as unknown;
    return isKey(key) ? key : undefined;
  } catch {
    return undefined;
  }
}

const isMonthOrPk = (value: unknown) => Number.isSafeInteger(value);

/** A key of the group listing where rows carry a `pk`: `[email, dimension key, start month, pk]`. */
export const isGroupKey = (key: unknown): key is [string, string, number, number] =>
  Array.isArray(key) && key.length === 4 && typeof key[0] === 'string' && typeof key[1] === 'string' && key.slice(2).every(isMonthOrPk);

/**
 * A key of the group listing where a row's key is its user, dimension and start month:
 * `[email, dimension key, start month]`; or a key issued while rows carried a `pk` (one more
 * element), which names the same place, since no two rows share user, dimension and start.
 */
export const isGroupStartKey = (key: unknown): key is [string, string, number] | [string, string, number, number] =>
  Array.isArray(key) && (key.length === 3 || isGroupKey(key)) && typeof key[0] === 'string' && typeof key[1] === 'string' && isMonthOrPk(key[2]);

/** A key of the manager listing: `[email, start month or the earliest safe integer, pk]`. */
export const isManagerKey = (key: unknown): key is [string, number, number] =>
  Array.isArray(key) && key.length === 3 && typeof key[0] === 'string' && key.slice(1).every(isMonthOrPk);
