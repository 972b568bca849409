import { narrows } from '../../domain/reportingFilter.js';
import { tableOf } from '../admin/datasetReading.js';
import type { PagedSource } from '../engine/pagedSource.js';
import type { EngineReads } from '../engine/readSteps.js';
import { changeScope, readChanges } from '../paging/changePaging.js';
import { readPage, scopeOf } from '../paging/pageReading.js';
import { readV2Page } from '../paging/v2Paging.js';
import type { RequestStore } from '../store.js';
import type { StoreContext } from '../storeContext.js';
import { after, type Answer } from '../vocabulary/answer.js';
import type { Source } from '../vocabulary/readShapes.js';
import { KeyGone } from '../vocabulary/storeErrors.js';
import type { Principal } from '../vocabulary/tenancy.js';
import { grantOf, type KeyCheck } from './keyCheck.js';
import { keyedListings } from './keyedListings.js';

type Reads = Pick<RequestStore, 'page' | 'total' | 'changes' | 'v2Page' | 'tables' | 'reportingSchema' | 'importOf' | 'health' | 'readServers'>;

/** The listing of the engine's reads that `source` names (docs/rules.md#paging). */
function sourceOf(reads: EngineReads, principal: Principal, source: Source): Answer<PagedSource | undefined> {
  const { tenantId, emptyFragment } = grantOf(principal);
  switch (source.kind) {
    case 'reporting':
      return narrows(source) ? reads.filteredReporting(tenantId, emptyFragment, source) : reads.reporting(tenantId, emptyFragment);
    case 'tableRecords':
      return reads.tableRecords(tenantId, source.table);
    case 'groupAttributions':
      return reads.groupAttributions(tenantId, { user: source.user, dimension: source.dimension });
    case 'managerAttributions':
      return reads.managerAttributions(tenantId, { user: source.user });
  }
}

/**
 * The reads of a request: on the server its key check chose (a replica, or the primary), paged
 * by the one paging of each kind (../paging/), each answer with the version of the tenant's data
 * read with the key.
 */
export function readServing(context: StoreContext, keys: KeyCheck): Reads {
  const { engine, router, unreachable, inTurn } = context;
  /** A provisional principal checked before a read that does not check it (docs/architecture.md#how-a-read-is-served). */
  const confirmed = async (principal: Principal): Promise<void> => {
    if (!(await keys.confirm(principal))) throw new KeyGone();
  };
  // The unfiltered reporting records, a data table's records and v2 pages without time filters of a provisional principal: read with its key check.
  const keyed = keyedListings(context, keys, confirmed);
  /**
   * Runs a request's reads on its server; on a replica that fails (taken out of the rotation
   * when it stops answering), or whose answer `onPrimary` says only the primary can give, again
   * on the primary.
   */
  const onServer = async <T>(principal: Principal, work: (on: EngineReads) => Answer<T>, onPrimary?: (result: T) => boolean): Promise<T> => {
    const held = grantOf(principal);
    if (held.pending) await confirmed(principal);
    if (held.server) {
      try {
        const result = await work(held.server.reads);
        if (!onPrimary?.(result)) return result;
      } catch (error) {
        // Whatever failed on a replica (it went away; a query cancelled by the replay of a
        // conflicting change, as hot standbys do) is asked of the primary, which has the last word.
        router!.failed(held.server, error, unreachable(error));
      }
      await keys.moveToPrimary(held);
    }
    return inTurn(() => work(engine.reads));
  };
  return {
    page: (principal, source, query) =>
      keyed.page(principal, source, query) ??
      onServer(principal, (on) =>
        after(sourceOf(on, principal, source), (paged) => {
          if (!paged) return 'unknownTable' as const;
          return after(readPage(paged, query, () => scopeOf(source)), (page) =>
            typeof page === 'string' ? page : { ...page, version: grantOf(principal).dataVersion },
          );
        }),
      ),
    total: (principal, source) =>
      keyed.total(principal, source) ??
      onServer(principal, (on) =>
        after(sourceOf(on, principal, source), (paged) => paged && after(paged.total(), (count) => ({ count, version: grantOf(principal).dataVersion }))),
      ),
    // A token of changes a replica has not replayed yet is answered by the primary (docs/scaling.md).
    changes: async (principal, source, query) => {
      const page = await onServer(
        principal,
        (on) => {
          const { tenantId, emptyFragment } = grantOf(principal);
          const changes = source.kind === 'reporting' ? on.reportingChanges(tenantId, emptyFragment) : on.tableChanges(tenantId, source.table);
          return after(changes, (found) => {
            if (!found) return 'unknownTable' as const;
            return after(readChanges(found, query, tenantId, changeScope(source)), (read) =>
              typeof read === 'string' ? read : { ...read, version: grantOf(principal).dataVersion },
            );
          });
        },
        (page) => page === 'ahead',
      );
      return page === 'ahead' ? 'badToken' : page;
    },
    v2Page: async (principal, structure, query) =>
      (await keyed.v2Page(principal, structure, query)) ??
      onServer(principal, (on) => {
        const { tenantId } = principal;
        const reads = structure.kind === 'statements' ? on.v2Statements(tenantId) : on.v2TableRecords(tenantId, structure.key);
        return after(reads, (found) => {
          if (!found) return 'unknownStructure' as const;
          return after(readV2Page(found, query), (page) => (typeof page === 'string' ? page : { ...page, version: grantOf(principal).dataVersion }));
        });
      }),
    tables: (principal, key) => onServer(principal, (on) => after(on.tables(principal.tenantId, key), (rows) => rows.map(tableOf))),
    reportingSchema: (principal) => onServer(principal, (on) => on.reportingSchema(principal.tenantId)),
    importOf: async (principal, id) => {
      await confirmed(principal);
      return inTurn(() => engine.reads.importOf(principal.tenantId, id));
    },
    health: () => engine.health(),
    readServers: () => router?.states() ?? [],
  };
}
