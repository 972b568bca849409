import { after, type Answer } from '../engine.js';

/** A record as the v2 reads read it: its v1 JSON text and the time it last changed (milliseconds since 1970). */
export type V2Row = [json: string, modifiedAt: number];

/** The modification times a read keeps: after `after` and before `before` (milliseconds since 1970, both excluded). */
export interface ModifiedBetween {
  readonly after: number;
  readonly before: number;
}

/**
 * What an engine supplies for the v2 reads (docs/rules.md#v2-reads). A record changed at the
 * time of its stamp (the later of its row's and its dimension fields', as v1's sync reads
 * them), each stamp dated in the transaction that took it (`stamp_times`).
 */
export interface V2Reads {
  /** Where the tenant's statement line `id` stands, or stood before it was deleted; `undefined` when it never was one. */
  reportingPosition(tenantId: number, id: string): Answer<number | undefined>;
  /** Where the record `id` of the tenant's data table `tableKey` stands or stood; `undefined` when it never was one. */
  tablePosition(tenantId: number, tableKey: string, id: string): Answer<number | undefined>;
  /** Up to `n` statement lines from position `from` on, changed between the times, in position order. */
  reportingRows(tenantId: number, emptyFragment: string, from: number, n: number, modified: ModifiedBetween): Answer<V2Row[]>;
  /** The same for the records of a data table; `undefined` when the tenant has no such table. */
  tableRows(tenantId: number, tableKey: string, from: number, n: number, modified: ModifiedBetween): Answer<V2Row[] | undefined>;
  /** The e-mail address of each of `ids` that is a user of the tenant, as `[id, email]`. */
  userEmails(tenantId: number, ids: readonly string[]): Answer<[string, string][]>;
}

/** The rows of one listing, read by position. */
export interface V2Listing {
  position(id: string): Answer<number | undefined>;
  rows(from: number, n: number, modified: ModifiedBetween): Answer<V2Row[] | undefined>;
}

export interface V2PageQuery {
  /** The id of the record to start after (absent: from the first). */
  readonly startId?: string;
  /** Records wanted, 1 to 2000. */
  readonly limit: number;
  readonly modified: ModifiedBetween;
}

/** A page of v2: the records (the handler renders them as v2 does), and whether more follow. */
interface V2Page {
  readonly rows: V2Row[];
  readonly more: boolean;
}

/** A page, or why there is none: no such table, or a `start_id` that never named a record of the listing. */
export type V2PageReadOutcome = V2Page | 'unknownTable' | 'unknownStartId';

/**
 * A v2 page, whatever the engine: the records after the one `start_id` names, in the order v1
 * lists them (by position), seeking by position so that every page costs what the first does.
 * A record deleted since it was handed out goes on from where it stood. `limit + 1` records
 * are read to know whether more follow, without counting.
 */
export function readV2Page(listing: V2Listing, query: V2PageQuery): Answer<V2PageReadOutcome> {
  const read = (from: number) =>
    after(listing.rows(from, query.limit + 1, query.modified), (rows): V2PageReadOutcome =>
      rows === undefined ? 'unknownTable' : { rows: rows.slice(0, query.limit), more: rows.length > query.limit },
    );
  if (query.startId === undefined) return read(0);
  return after(listing.position(query.startId), (position) => (position === undefined ? 'unknownStartId' : read(position + 1)));
}
