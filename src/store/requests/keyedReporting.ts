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
  /**
   * What a keyed read gave when its key granted it, with the data version of its snapshot;
   * `undefined` when it must be read again as for any principal (with the version of the grant,
   * read before).
   */
  const settled = async <T>(held: Grant, read: KeyedRead<T>): Promise<{ value: T; version: string } | undefined> => {
    if (read.key === undefined) {
      await confirmed(held);
      return undefined;
    }
    const version = keys.settle(held, read.key);
    if (version === undefined) throw new KeyGone();
    return read.value === undefined ? undefined : { value: read.value, version };
  };
  return {
    page(principal: Principal, source: Source, query: PageQuery): Page | undefined {
      const held = applies(principal, source);
      if (!held || !reads) return undefined;
      const { keyId, tenantId, presented } = held;
      const plain = () => engine.reads.reporting(held.tenantId, held.emptyFragment);
      let version: string | undefined;
      const paged: PagedSource = {
        rows: (from, n) => plain().rows(from, n),
        total: () => plain().total(),
        joined: async (from, n) => {
          const keyed = await settled(held, await inTurn(() => reads.reportingJoined(keyId, presented!.secretHash, tenantId, from, n)));
          if (keyed) version = keyed.version;
          return keyed?.value ?? (await inTurn(() => plain().joined!(from, n)));
        },
      };
      return (async () => {
        const page = await readPage(paged, query, () => scopeOf(source));
        // A page past every position reads nothing: the key is checked on its own then.
        await confirmed(held);
        return typeof page === 'string' ? page : { ...page, version: version ?? held.dataVersion };
      })();
    },
    total(principal: Principal, source: Source): Total | undefined {
      const held = applies(principal, source);
      if (!held || !reads) return undefined;
      const { keyId, tenantId, presented } = held;
      return (async () => {
        const keyed = await settled(held, await inTurn(() => reads.reportingTotal(keyId, presented!.secretHash, tenantId)));
        if (keyed) return { count: keyed.value, version: keyed.version };
        return { count: await inTurn(() => engine.reads.reporting(held.tenantId, held.emptyFragment).total()), version: held.dataVersion };
      })();
    },
  };
}
