import { narrows } from '../../domain/reportingFilter.js';
import type { KeyedRead } from '../engine/keyedReads.js';
import type { PagedSource } from '../engine/pagedSource.js';
import { readPage, scopeOf } from '../paging/pageReading.js';
import type { RequestStore } from '../store.js';
import type { StoreContext } from '../storeContext.js';
import type { Source, PageQuery } from '../vocabulary/readShapes.js';
import { KeyGone } from '../vocabulary/storeErrors.js';
import type { Principal } from '../vocabulary/tenancy.js';
import { grantOf, type Grant, type KeyCheck } from './keyCheck.js';

type Page = ReturnType<RequestStore['page']>;
type Total = ReturnType<RequestStore['total']>;

/**
 * The page and the count of a tenant's unfiltered reporting records for a provisional principal
 * (keyCheck.ts), on an engine that checks the key in the read's statement
 * (../engine/keyedReads.ts): one round trip for the key and the read. The key's row read with
 * the page settles the grant (its scope, empty fields and data version, all of the page's
 * snapshot); a key gone throws {@link KeyGone}; no row (an id made again for another tenant)
 * checks the key in full, and the page is then read as any other. `undefined` where this does
 * not apply: the store reads as for any principal.
 */
export function keyedReporting({ engine, inTurn }: StoreContext, keys: KeyCheck, confirmed: (principal: Principal) => Promise<void>) {
  const reads = engine.keyedReads;
  const applies = (principal: Principal, source: Source): Grant | undefined => {
    const held = grantOf(principal);
    return reads && held.pending && !held.server && source.kind === 'reporting' && !narrows(source) ? held : undefined;
  };
  /** What a keyed read gave when its key granted it; `undefined` when it must be read again as for any principal. */
  const settled = async <T>(held: Grant, read: KeyedRead<T>): Promise<T | undefined> => {
    if (read.key === undefined) {
      await confirmed(held);
      return undefined;
    }
    if (!keys.settle(held, read.key)) throw new KeyGone();
    return read.value;
  };
  return {
    page(principal: Principal, source: Source, query: PageQuery): Page | undefined {
      const held = applies(principal, source);
      if (!held || !reads) return undefined;
      const { keyId, tenantId, pending } = held;
      const plain = () => engine.reads.reporting(held.tenantId, held.emptyFragment);
      const paged: PagedSource = {
        rows: (from, n) => plain().rows(from, n),
        total: () => plain().total(),
        joined: async (from, n) =>
          (await settled(held, await inTurn(() => reads.reportingJoined(keyId, pending!.secretHash, tenantId, from, n)))) ??
          (await inTurn(() => plain().joined!(from, n))),
      };
      return (async () => {
        const page = await readPage(paged, query, () => scopeOf(source));
        // A page past every position reads nothing: the key is checked on its own then.
        if (held.pending) await confirmed(held);
        return typeof page === 'string' ? page : { ...page, version: held.dataVersion };
      })();
    },
    total(principal: Principal, source: Source): Total | undefined {
      const held = applies(principal, source);
      if (!held || !reads) return undefined;
      const { keyId, tenantId, pending } = held;
      return (async () => {
        const count =
          (await settled(held, await inTurn(() => reads.reportingTotal(keyId, pending!.secretHash, tenantId)))) ??
          (await inTurn(() => engine.reads.reporting(held.tenantId, held.emptyFragment).total()));
        return { count, version: held.dataVersion };
      })();
    },
  };
}
