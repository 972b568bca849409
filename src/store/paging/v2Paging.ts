import { after, type Answer } from '../engine.js';
import type { PagedSource } from './pagedSource.js';

/** What an engine supplies for the v2 reads besides the paged sources of v1 (docs/rules.md#v2-reads). */
export interface V2Reads {
  /** The position of the tenant's statement line `id`, or `undefined` when it has none. */
  reportingPosition(tenantId: number, id: string): Answer<number | undefined>;
  /** The position of the record `id` of the tenant's data table `tableKey`, or `undefined`. */
  tablePosition(tenantId: number, tableKey: string, id: string): Answer<number | undefined>;
  /** The e-mail address of each of `ids` that is a user of the tenant, as `[id, email]`. */
  userEmails(tenantId: number, ids: readonly string[]): Answer<[string, string][]>;
}

export interface V2PageQuery {
  /** The id of the record to start after (absent: from the first). */
  readonly startId?: string;
  /** Records wanted, 1 to 2000. */
  readonly limit: number;
}

/** A page of v2: the records' v1 JSON texts (the handler renders them as v2 does), and whether more follow. */
interface V2Page {
  readonly records: string[];
  readonly more: boolean;
}

/** A page, or why there is none: `start_id` names no record of the structure. */
export type V2PageReadOutcome = V2Page | 'unknownStartId';

/**
 * A v2 page, whatever the engine: the records after the one `start_id` names, in the order v1
 * lists them (by position), seeking by position so that every page costs what the first does.
 * `limit + 1` records are read to know whether more follow, without counting.
 */
export function readV2Page(source: PagedSource, positionOf: (id: string) => Answer<number | undefined>, query: V2PageQuery): Answer<V2PageReadOutcome> {
  const read = (from: number) =>
    after(source.rows(from, query.limit + 1), (rows): V2Page => ({ records: rows.slice(0, query.limit), more: rows.length > query.limit }));
  if (query.startId === undefined) return read(0);
  return after(positionOf(query.startId), (position) => (position === undefined ? 'unknownStartId' : read(position + 1)));
}
