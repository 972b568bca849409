import type { FilteredReads } from '../engine/readSteps.js';
import type { PagedSource } from '../engine/pagedSource.js';

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
