import type { ReportingFilter } from '../../domain/reportingFilter.js';
import type { TableField } from '../../domain/tableJson.js';
/** A paged listing of a tenant (docs/rules.md#paging): one page request serves every one of them. */
export type Source =
  | ({ readonly kind: 'reporting' } & ReportingFilter)
  | { readonly kind: 'tableRecords'; readonly table: string }
  | { readonly kind: 'groupAttributions'; readonly user?: string; readonly dimension?: string }
  | { readonly kind: 'managerAttributions'; readonly user?: string };

/** The listings that can be synced by `changed_since`. */
export type ChangedSource = Extract<Source, { kind: 'reporting' | 'tableRecords' }>;

export interface ChangeQuery {
  /** The `changed_since` of the request: `0` or a token this server issued. */
  readonly since: string;
  /** Records wanted, at least 1. */
  readonly limit: number;
}

/** A page of changes: a `next` token while more follow, else the `sync_token` for the next sync. */
export interface ChangePage {
  readonly count: number;
  /** The records' JSON texts, comma-separated, UTF-8 (empty when `count` is 0). */
  readonly json: Buffer;
  readonly next?: string;
  readonly syncToken?: string;
  /** See {@link Total.version}. */
  readonly version: string;
}

/**
 * A page of changes, or why there is none: no such table (404), a token this server did not
 * issue for this listing (400), a token from before the tenant's data was replaced (410).
 */
export type ChangeOutcome = ChangePage | 'unknownTable' | 'badToken' | 'resync';

export interface PageQuery {
  /** Position of the first record (up to 2^63 - 1). */
  readonly offset: bigint;
  /** Records wanted, at least 1. */
  readonly limit: number;
  /** The `cursor` parameter of a `next` URL, as the client sent it. */
  readonly cursor?: string;
}

export interface Page {
  readonly count: number;
  /** The records' JSON texts, comma-separated, UTF-8 (empty when `count` is 0). */
  readonly json: Buffer;
  /** Whether a record follows this page. */
  readonly more: boolean;
  /** The `cursor` for the `next` URL, from sources that seek by key. */
  readonly cursor?: string;
  /** The version of the tenant's data this page was read at (see {@link Total.version}). */
  readonly version: string;
}

export interface Total {
  readonly count: number;
  /**
   * The version of the tenant's data: opaque text that differs whenever the tenant's data may
   * differ (any write of the tenant's data gives a new one), and differs between tenants. The
   * engine may hand out a version older than the data read (never a newer one): a client that
   * compares versions is then at worst sent unchanged data again. Paged reads put it in their ETag.
   */
  readonly version: string;
}

/** A page, or why there is none: the tenant has no such table (404), or the cursor is not one this server issued (400). */
export type PageOutcome = Page | 'unknownTable' | 'badCursor';

/**
 * A read server as `/healthz` shows it: whether reads go to it, how many it served, how often it
 * left the rotation and how many reads it failed (each then served by another server); for a
 * replica, its replay position and how old its data was at the last check (absent while it does
 * not answer), and why it is out of rotation.
 */
export interface ReplicaState {
  readonly name: string;
  readonly inRotation: boolean;
  readonly reads: number;
  readonly removals: number;
  readonly failures: number;
  readonly position?: string;
  readonly lagMs?: number;
  readonly reason?: string;
}

export interface StoredTable {
  key: string;
  name: string;
  /** The fields, in record order. */
  fields: TableField[];
}

/** A data table as discovery lists it. */
export interface TableSummary extends StoredTable {
  recordCount: number;
}

/** The custom fields of a tenant's reporting records: metrics and dimensions in field order, each dimension's groups by name. */
export interface ReportingSchema {
  metricKeys: string[];
  dimensions: { key: string; groups: string[] }[];
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
