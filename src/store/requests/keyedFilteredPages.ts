import { narrows, type ReportingFilter } from '../../domain/reportingFilter.js';
import type { KeyedFilteredReads, KeyedRead } from '../engine/keyedReads.js';
import { filteredRecords } from '../paging/filteredRecords.js';
import { readPage, scopeOf } from '../paging/pageReading.js';
import type { RequestStore } from '../store.js';
import type { StoreContext } from '../storeContext.js';
import type { PageQuery, Source } from '../vocabulary/readShapes.js';
import type { Grant } from './keyCheck.js';

/**
 * What a keyed read gave when its key granted it, with the data version of its snapshot;
 * `undefined` when it must be read again as for any principal (its key checked by now).
 */
export type Settle = <T>(held: Grant, read: KeyedRead<T>) => Promise<{ value: T; version: string } | undefined>;

/** The filters of `source` when it names filtered reporting records. */
export const filterOf = (source: Source): ReportingFilter | undefined => (source.kind === 'reporting' && narrows(source) ? source : undefined);

/**
 * The page and the count of a tenant's filtered reporting records for a provisional principal,
 * as keyedListings.ts reads the unfiltered ones: each statement of the paging of filtered
 * records (../paging/filteredRecords.ts) with the key check inside, the user and the window of
 * the date range looked up in it. No key's row: the page read again as for any principal.
 */
export function keyedFilteredPages({ engine, inTurn }: StoreContext, reads: KeyedFilteredReads, settled: Settle, confirmed: (held: Grant) => Promise<void>) {
  /** The records of `filter` read as for any principal (its key checked by now). */
  const plainly = (held: Grant, filter: ReportingFilter) => engine.reads.filteredReporting(held.tenantId, held.emptyFragment, filter);
  return {
    async page(held: Grant, filter: ReportingFilter, source: Source, query: PageQuery): Promise<Awaited<ReturnType<RequestStore['page']>>> {
      const { keyId, tenantId, presented } = held;
      let unread = false;
      let version: string | undefined;
      const keyedValue = async <T>(read: () => Promise<KeyedRead<T>>, none: T): Promise<T> => {
        const keyed = await settled(held, await inTurn(read));
        unread ||= !keyed;
        if (keyed) version = keyed.version;
        return keyed ? keyed.value : none;
      };
      const keyed = filteredRecords({
        rows: (after, skip, n) => keyedValue(() => reads.filteredRows(keyId, presented!.secretHash, tenantId, filter, after, skip, n), []),
        total: () => keyedValue(() => reads.filteredTotal(keyId, presented!.secretHash, tenantId, filter), 0),
      });
      const scope = () => scopeOf(source);
      let page = await readPage(keyed, query, scope);
      if (unread) page = await inTurn(async () => readPage(await plainly(held, filter), query, scope));
      // A page that read nothing (past every record, a cursor refused): the key checked on its own.
      await confirmed(held);
      return typeof page === 'string' ? page : { ...page, version: version ?? held.dataVersion };
    },
    async total(held: Grant, filter: ReportingFilter): Promise<{ count: number; version: string }> {
      const keyed = await settled(held, await inTurn(() => reads.filteredTotal(held.keyId, held.presented!.secretHash, held.tenantId, filter)));
      if (keyed) return { count: keyed.value, version: keyed.version };
      return { count: await inTurn(async () => (await plainly(held, filter)).total()), version: held.dataVersion };
    },
  };
}
