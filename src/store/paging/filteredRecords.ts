import type { KeyedRow, PagedSource } from './pagedSource.js';

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

/** Before every position: a walk from the start. */
const START = -1;

export function filteredRecords(reads: FilteredReads): PagedSource {
  return {
    rows: async (from, n) => (await reads.rows(START, from, n)).map(([row]) => row),
    total: () => reads.total(),
    seek: {
      keyedRows: (from, n) => reads.rows(START, from, n),
      rowsAfter(key, n) {
        const position = /^(0|[1-9]\d{0,15})$/.test(key) ? Number(key) : undefined;
        return position === undefined || !Number.isSafeInteger(position) ? undefined : reads.rows(position, 0, n);
      },
    },
  };
}

/**
 * The positions that can hold a record of a date range: from the first position of the range's
 * first month present to the last position of its last (found from an index of months, a few
 * seeks per month present). Records are usually written in date order, so that a walk of a
 * range reads mostly records of the range rather than every record before it.
 */
export interface PositionWindow {
  first: number;
  last: number;
}

/** Every position. */
export const ALL_POSITIONS: PositionWindow = { first: 0, last: Number.MAX_SAFE_INTEGER };
