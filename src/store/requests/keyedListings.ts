import { narrows, type ReportingFilter } from '../../domain/reportingFilter.js';
import type { Structure } from '../../domain/v2Json.js';
import type { KeyedListing, KeyedRead, KeyedV2Page } from '../engine/keyedReads.js';
import type { PagedSource } from '../engine/pagedSource.js';
import type { V2Reads } from '../engine/readSteps.js';
import { readPage, scopeOf } from '../paging/pageReading.js';
import { readV2Page } from '../paging/v2Paging.js';
import type { RequestStore } from '../store.js';
import type { StoreContext } from '../storeContext.js';
import type { Source, PageQuery, V2Query } from '../vocabulary/readShapes.js';
import { KeyGone } from '../vocabulary/storeErrors.js';
import type { Principal } from '../vocabulary/tenancy.js';
import { grantOf, type Grant, type KeyCheck } from './keyCheck.js';
import { filterOf, keyedFilteredPages, type Settle } from './keyedFilteredPages.js';

type Page = ReturnType<RequestStore['page']>;
type Total = ReturnType<RequestStore['total']>;
type V2Answer = Awaited<ReturnType<RequestStore['v2Page']>>;

/** No records: the page of a data table the tenant has not, answered `unknownTable`. */
const NOTHING = { count: 0, json: Buffer.alloc(0), more: false };

/** The listing of `source` that a keyed read serves: the unfiltered reporting records, or a data table's records. */
function listingOf(source: Source): KeyedListing | undefined {
  if (source.kind === 'reporting') return narrows(source) ? undefined : source;
  return source.kind === 'tableRecords' ? source : undefined;
}

/** The reads of ../paging/v2Paging.ts over what a keyed read of the page read in advance: its start id's position, its records, the id of its last one. */
function v2ReadsOf({ start, page, lastId }: KeyedV2Page): V2Reads {
  return {
    positionOf: () => start,
    joined: () => page,
    idAt: () => lastId!,
    changedBetween: () => {
      throw new Error('a v2 page with time filters is no keyed read');
    },
  };
}

/**
 * The page and the count of a tenant's reporting records (filtered: keyedFilteredPages.ts) or of
 * a data table's records, and a v2 page without time filters, for a provisional principal
 * (keyCheck.ts), on an engine that checks the key in the read's statement
 * (../engine/keyedReads.ts): one round trip for the key and the read. The key's
 * row read with the page settles the grant (its scope, empty fields and data version, all of the
 * page's snapshot); a key gone throws {@link KeyGone}; no row (an id made again for another
 * tenant) checks the key in full, and the page is then read as any other. `undefined` where this
 * does not apply: the store reads as for any principal.
 */
export function keyedListings(context: StoreContext, keys: KeyCheck, confirmed: (principal: Principal) => Promise<void>) {
  const { engine, inTurn } = context;
  const reads = engine.keyedReads;
  /** The principal's grant when it is provisional and read on the primary: its key then checked in the read's statement. */
  const provisional = (principal: Principal): Grant | undefined => {
    const held = grantOf(principal);
    return reads && held.pending && !held.server ? held : undefined;
  };
  const applies = (principal: Principal, source: Source): { held: Grant; listing: KeyedListing } | undefined => {
    const held = provisional(principal);
    const listing = listingOf(source);
    return held && listing ? { held, listing } : undefined;
  };
  /** The listing read as for any principal (its key checked by now), `undefined` for a data table the tenant has not. */
  const plainly = (held: Grant, listing: KeyedListing): Promise<PagedSource | undefined> =>
    inTurn(async () => (listing.kind === 'reporting' ? engine.reads.reporting(held.tenantId, held.emptyFragment) : engine.reads.tableRecords(held.tenantId, listing.table)));
  const settled: Settle = async <T>(held: Grant, read: KeyedRead<T>): Promise<{ value: T; version: string } | undefined> => {
    if (read.key === undefined) {
      await confirmed(held);
      return undefined;
    }
    const version = keys.settle(held, read.key);
    if (version === undefined) throw new KeyGone();
    return read.value === undefined ? undefined : { value: read.value, version };
  };
  const filtered = reads && keyedFilteredPages(context, reads, settled, confirmed);
  /** The provisional grant and the filters of a filtered reporting read that checks its key in its statements. */
  const filteredRead = (principal: Principal, source: Source): { held: Grant; filter: ReportingFilter } | undefined => {
    const held = provisional(principal);
    const filter = filterOf(source);
    return held && filter ? { held, filter } : undefined;
  };
  return {
    page(principal: Principal, source: Source, query: PageQuery): Page | undefined {
      const narrowed = filteredRead(principal, source);
      if (filtered && narrowed) return filtered.page(narrowed.held, narrowed.filter, source, query);
      const found = applies(principal, source);
      if (!found || !reads) return undefined;
      const { held, listing } = found;
      const { keyId, tenantId, presented } = held;
      // The listing read as for any principal, looked up once when needed (`null`: no such data table).
      let plainSource: Promise<PagedSource | null> | undefined;
      const plain = () => (plainSource ??= plainly(held, listing).then((paged) => paged ?? null));
      let version: string | undefined;
      let noTable = false;
      const paged: PagedSource = {
        rows: async (from, n) => (await plain())?.rows(from, n) ?? [],
        total: async () => (await plain())?.total() ?? 0,
        joined: async (from, n) => {
          const keyed = await settled(held, await inTurn(() => reads.joined(keyId, presented!.secretHash, tenantId, listing, from, n)));
          if (keyed) version = keyed.version;
          if (keyed?.value) return keyed.value;
          const other = keyed ? null : await plain();
          noTable = !other;
          return other ? await inTurn(async () => other.joined!(from, n)) : NOTHING;
        },
      };
      return (async () => {
        const page = await readPage(paged, query, () => scopeOf(source));
        // A page past every position reads nothing: the key is checked on its own then.
        await confirmed(held);
        if (noTable || (listing.kind === 'tableRecords' && version === undefined && !(await plain()))) return 'unknownTable';
        return typeof page === 'string' ? page : { ...page, version: version ?? held.dataVersion };
      })();
    },
    /** `undefined` where a keyed read does not apply; a promise of `undefined` when the page is to be read as for any principal (its key checked by now). */
    v2Page(principal: Principal, structure: Structure, query: V2Query): Promise<V2Answer | undefined> | undefined {
      const held = provisional(principal);
      const filtered = query.modifiedAfter !== undefined || query.modifiedBefore !== undefined;
      if (!reads || !held || filtered) return undefined;
      const { keyId, tenantId, presented } = held;
      return (async () => {
        const keyed = await settled(held, await inTurn(() => reads.v2Page(keyId, presented!.secretHash, tenantId, structure, query.startId, query.limit)));
        if (!keyed) return undefined;
        if (!keyed.value) return 'unknownStructure';
        const page = await readV2Page(v2ReadsOf(keyed.value), query);
        return typeof page === 'string' ? page : { ...page, version: keyed.version };
      })();
    },
    total(principal: Principal, source: Source): Total | undefined {
      const narrowed = filteredRead(principal, source);
      if (filtered && narrowed) return filtered.total(narrowed.held, narrowed.filter);
      const found = applies(principal, source);
      if (!found || !reads) return undefined;
      const { held, listing } = found;
      const { keyId, tenantId, presented } = held;
      return (async () => {
        const keyed = await settled(held, await inTurn(() => reads.total(keyId, presented!.secretHash, tenantId, listing)));
        if (keyed) return keyed.value === null ? undefined : { count: keyed.value, version: keyed.version };
        const plain = await plainly(held, listing);
        return plain && { count: await inTurn(async () => plain.total()), version: held.dataVersion };
      })();
    },
  };
}
