import type { ReportingFilter } from '../../domain/reportingFilter.js';
import type { Structure } from '../../domain/v2Json.js';
import type { JoinedRows, KeyedRow } from './pagedSource.js';
import type { StoredKey } from './readSteps.js';

/**
 * A read that checks its key in the same statement (one round trip to the database): the key's
 * row as stored (`undefined` when the key `keyId` is no key of the tenant named) and, only when
 * the key was active and the hash of the secret presented matched, what was read. An engine whose
 * reads cost a round trip each (PostgreSQL) supplies these; the store uses them for a key whose
 * tenant it knows from an earlier check (../requests/keyCheck.ts).
 */
export interface KeyedRead<T> {
  key: StoredKey | undefined;
  /** `undefined` when the key did not grant the read. */
  value: T | undefined;
}

/**
 * A listing read with its key: the tenant's statement reporting records (unfiltered), or the
 * records of its data table `table` (`null` as the value when the tenant has no such table).
 */
export type KeyedListing = { readonly kind: 'reporting' } | { readonly kind: 'tableRecords'; readonly table: string };

/**
 * A v2 page read with its key, what ../paging/v2Paging.ts asks of its reads for a page without
 * time filters: the position of the page's start id (-1 without one; `undefined` when no record
 * of the structure ever had it), up to `n` records from the next position and whether one
 * follows, and the id of the `n`th of them when one does.
 */
export interface KeyedV2Page {
  start: number | undefined;
  page: JoinedRows;
  lastId: string | undefined;
}

/** The reads of a tenant's filtered reporting records with the key check inside, as readSteps.ts's `FilteredReads` reads them. */
export interface KeyedFilteredReads {
  /** `FilteredReads.rows`: up to `n` records that match `filter` at positions after `after`, the first `skip` of them skipped. */
  filteredRows(keyId: string, secretHash: Buffer, tenantId: number, filter: ReportingFilter, after: number, skip: number, n: number): Promise<KeyedRead<KeyedRow[]>>;
  /** `FilteredReads.total`: the number of records that match `filter`. */
  filteredTotal(keyId: string, secretHash: Buffer, tenantId: number, filter: ReportingFilter): Promise<KeyedRead<number>>;
}

/** The reads of a tenant's listings with the key check inside. */
export interface KeyedReads extends KeyedFilteredReads {
  /** A page as `PagedSource.joined` reads it, from position `from`, up to `n` records. */
  joined(keyId: string, secretHash: Buffer, tenantId: number, listing: KeyedListing, from: number, n: number): Promise<KeyedRead<JoinedRows | null>>;
  /** The number of records, as `PagedSource.total` counts it. */
  total(keyId: string, secretHash: Buffer, tenantId: number, listing: KeyedListing): Promise<KeyedRead<number | null>>;
  /** A v2 page of `structure` of up to `n` records after the record `startId` (`null` as the value when the tenant has no such data table). */
  v2Page(keyId: string, secretHash: Buffer, tenantId: number, structure: Structure, startId: string | undefined, n: number): Promise<KeyedRead<KeyedV2Page | null>>;
}
