import { after, type Answer } from '../engine.js';

/**
 * What an engine supplies for the v2 reads of one structure (the statements of a tenant, or a
 * data table): its records in v1's order (position), rendered as v2 writes them with the time of
 * their last change, read by seeking to a position; where a record id stands; and the stamps
 * that bound modification times.
 */
export interface V2Reads {
  /** The position of the record `id`, or of where it stood when a replace deleted it; `undefined` when no record of the structure ever had it. */
  positionOf(id: string): Answer<number | undefined>;
  /** The highest stamp of the tenant dated at or before `time` (`inclusive`) or before it; 0 when none. */
  stampDated(time: string, inclusive: boolean): Answer<number>;
  /** The records at positions `from`..`from + n - 1`, joined by commas, the id of the last, and whether a record follows. */
  joined(from: number, n: number): Answer<{ count: number; json: Buffer; lastId?: string; more: boolean }>;
  /** Up to `n` records after position `from - 1` whose last change has a stamp in `(lo, hi]`, in order, each as [json, id]. */
  changedBetween(from: number, lo: number, hi: number, n: number): Answer<[json: string, id: string][]>;
}

/** A v2 page request, its times as stored (`YYYY-MM-DDTHH:MM:SS.sssZ`). */
export interface V2Query {
  readonly startId?: string;
  /** Records wanted, 1 to 2000. */
  readonly limit: number;
  readonly modifiedAfter?: string;
  readonly modifiedBefore?: string;
}

export interface V2Page {
  readonly count: number;
  /** The records' JSON texts, comma-separated, UTF-8. */
  readonly json: Buffer;
  /** The id to start the next page after, when a record follows. */
  readonly nextStartId?: string;
  /** The version of the tenant's data (see `Total.version` in store.ts). */
  readonly version: string;
}

export type V2PageRead = Omit<V2Page, 'version'> | 'badStartId';

/** The stamp bounds meaning "no filter". */
const ANY = { lo: Number.MIN_SAFE_INTEGER, hi: Number.MAX_SAFE_INTEGER };

/**
 * A v2 page (docs/rules.md#v2-reads), whatever the engine: the records after `startId` in v1's
 * order, each page a seek to a position, so that a deep page costs what the first does. A
 * record deleted since its id was handed out is gone on from where it stood; an id that never
 * named a record of the structure is refused. The times of the filters become stamps (times
 * increase with stamps within a tenant), so that a filter is exact to the millisecond.
 */
export function readV2Page(reads: V2Reads, query: V2Query): Answer<V2PageRead> {
  const start = query.startId === undefined ? -1 : reads.positionOf(query.startId);
  return after(start, (position) => {
    if (position === undefined) return 'badStartId' as const;
    const from = position + 1;
    if (query.modifiedAfter === undefined && query.modifiedBefore === undefined) {
      return after(reads.joined(from, query.limit), ({ count, json, lastId, more }) => ({ count, json, nextStartId: more ? lastId : undefined }));
    }
    return after(stampBounds(reads, query), ({ lo, hi }) =>
      after(reads.changedBetween(from, lo, hi, query.limit + 1), (rows) => {
        const count = Math.min(rows.length, query.limit);
        const json = Buffer.from(rows.slice(0, count).map(([row]) => row).join(','));
        return { count, json, nextStartId: rows.length > query.limit ? rows[count - 1]![1] : undefined };
      }),
    );
  });
}

function stampBounds(reads: V2Reads, query: V2Query): Answer<{ lo: number; hi: number }> {
  const lo = query.modifiedAfter === undefined ? ANY.lo : reads.stampDated(query.modifiedAfter, true);
  return after(lo, (low) => {
    const hi = query.modifiedBefore === undefined ? ANY.hi : reads.stampDated(query.modifiedBefore, false);
    return after(hi, (high) => ({ lo: low, hi: high }));
  });
}
