import { after, type Answer } from '../engine.js';

/**
 * What an engine supplies for the v2 reads of one structure (the statements of a tenant, or a
 * data table): its records in v1's order (position), rendered as v2 writes them with the time of
 * their last change, read by seeking to a position; and where a record id stands.
 */
export interface V2Reads {
  /** The position of the record `id`, or of where it stood when a replace deleted it; `undefined` when no record of the structure ever had it. */
  positionOf(id: string): Answer<number | undefined>;
  /** The records at positions `from`..`from + n - 1`, joined by commas, and whether a record follows. */
  joined(from: number, n: number): Answer<{ count: number; json: Buffer; more: boolean }>;
  /** The id of the record at `position` (read apart from the page: taking it in the page's statement costs more). */
  idAt(position: number): Answer<string>;
  /** Up to `n` records from position `from` whose time of last change is after `after` and before `before` (stored times), in order, each as [json, id]. */
  changedBetween(from: number, after: string, before: string, n: number): Answer<[json: string, id: string][]>;
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

/** Bounds every stored time (`YYYY-...Z`) is between: no filter on that side. */
const BEFORE_EVERY_TIME = '';
const AFTER_EVERY_TIME = '~';

/**
 * A v2 page (docs/rules.md#v2-reads), whatever the engine: the records after `startId` in v1's
 * order, each page a seek to a position, so that a deep page costs what the first does. A
 * record deleted since its id was handed out is gone on from where it stood; an id that never
 * named a record of the structure is refused. The filters compare stored times, which are
 * exact to the millisecond and written as the filters' times are (domain/v2Json.ts).
 */
export function readV2Page(reads: V2Reads, query: V2Query): Answer<V2PageRead> {
  const start = query.startId === undefined ? -1 : reads.positionOf(query.startId);
  return after(start, (position) => {
    if (position === undefined) return 'badStartId' as const;
    const from = position + 1;
    if (query.modifiedAfter === undefined && query.modifiedBefore === undefined) {
      return after(reads.joined(from, query.limit), ({ count, json, more }) => {
        if (!more) return { count, json };
        return after(reads.idAt(from + count - 1), (id) => ({ count, json, nextStartId: id }));
      });
    }
    const bounds = [query.modifiedAfter ?? BEFORE_EVERY_TIME, query.modifiedBefore ?? AFTER_EVERY_TIME] as const;
    return after(reads.changedBetween(from, ...bounds, query.limit + 1), (rows) => {
      const count = Math.min(rows.length, query.limit);
      const json = Buffer.from(rows.slice(0, count).map(([row]) => row).join(','));
      return { count, json, nextStartId: rows.length > query.limit ? rows[count - 1]![1] : undefined };
    });
  });
}
