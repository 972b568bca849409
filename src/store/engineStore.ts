import type { Upsert } from '../domain/bulkItems.js';
import { narrows } from '../domain/reportingFilter.js';
import { keyIdOf, newKey, parseKey, secretMatches } from './apiKeys.js';
import { unstorableGroups } from './bulkUpsert.js';
import { datasetReads, tableOf } from './datasetReading.js';
import { after, type Answer, type Engine } from './engine.js';
import { translatingErrors } from './errorTranslation.js';
import { fairQueue } from './fairQueue.js';
import { checkInvariants } from './invariantCheck.js';
import { textCheckFor } from './loadChecks.js';
import { TenantLoader } from './loading/tenantLoader.js';
import { changeScope, readChanges } from './paging/changePaging.js';
import { readPage, scopeOf } from './paging/pageReading.js';
import type { PagedSource } from './paging/pagedSource.js';
import { readV2Page, type V2Listing } from './paging/v2Paging.js';
import { TenantNotEmpty, type BulkOutcome, type Principal, type Source, type Store } from './store.js';

/** What a key grants: its tenant, and what a read of the tenant needs at once. */
interface Grant extends Principal {
  /** The dimension fields of a record whose user holds no group. */
  readonly emptyFragment: string;
  /** The version of the tenant's data when the key was looked up (see `Total.version`). */
  readonly dataVersion: string;
}

/**
 * The version as the store hands it out: opaque, distinct across tenants. It is read with the
 * key, before the page: a version read before the data can only be older than the data read,
 * so a client holding it is at worst sent the same page again, never told that a changed page
 * is unchanged.
 */
const versionText = (tenantId: number, stored: string): string => `${tenantId}.${stored}`;

/**
 * The one store: every rule of the service once, over any engine's steps. The engine supplies
 * SQL and connections (engine.ts); here are the key check, the data versions, which listing a
 * request reads and how it is paged, the order of a load's steps, the export and the checks.
 * Every operation's errors pass through the engine's translation into the store's own.
 */
export function storeOver(engine: Engine): Store {
  const { reads, keys } = engine;
  const checkText = textCheckFor(engine.textHoldsNul);
  // Reads that hold the thread (SQLite's) are taken in turns; others run as they come.
  const inTurn: <T>(work: () => Answer<T>) => Promise<T> = engine.synchronousReads ? fairQueue() : async (work) => work();

  const grant = (principal: Principal) => principal as Grant;
  const sourceOf = (principal: Principal, source: Source): Answer<PagedSource | undefined> => {
    const { tenantId, emptyFragment } = grant(principal);
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
  };

  const store: Store = {
    async authenticate(presented) {
      const parsed = parseKey(presented);
      if (!parsed) return undefined;
      const stored = await keys.lookup(parsed.id);
      if (!secretMatches(parsed.secret, stored?.secretHash) || !stored || stored.revoked) return undefined;
      return { tenantId: stored.tenantId, emptyFragment: stored.emptyFragment, dataVersion: versionText(stored.tenantId, stored.dataVersion) } satisfies Grant;
    },
    page: (principal, source, query) =>
      inTurn(() =>
        after(sourceOf(principal, source), (paged) => {
          if (!paged) return 'unknownTable' as const;
          return after(readPage(paged, query, () => scopeOf(source)), (page) =>
            typeof page === 'string' ? page : { ...page, version: grant(principal).dataVersion },
          );
        }),
      ),
    total: (principal, source) =>
      inTurn(() =>
        after(sourceOf(principal, source), (paged) =>
          paged && after(paged.total(), (count) => ({ count, version: grant(principal).dataVersion })),
        ),
      ),
    changes: (principal, source, query) =>
      inTurn(() => {
        const { tenantId, emptyFragment, dataVersion } = grant(principal);
        const changes = source.kind === 'reporting' ? reads.reportingChanges(tenantId, emptyFragment) : reads.tableChanges(tenantId, source.table);
        return after(changes, (found) => {
          if (!found) return 'unknownTable' as const;
          return after(readChanges(found, query, tenantId, changeScope(source)), (page) =>
            typeof page === 'string' ? page : { ...page, version: dataVersion },
          );
        });
      }),
    v2Page: (principal, source, query) =>
      inTurn(() => {
        const { tenantId, emptyFragment } = grant(principal);
        const { v2 } = reads;
        const listing: V2Listing =
          source.kind === 'reporting'
            ? { position: (id) => v2.reportingPosition(tenantId, id), rows: (from, n, modified) => v2.reportingRows(tenantId, emptyFragment, from, n, modified) }
            : { position: (id) => v2.tablePosition(tenantId, source.table, id), rows: (from, n, modified) => v2.tableRows(tenantId, source.table, from, n, modified) };
        return readV2Page(listing, query);
      }),
    userEmails: (principal, userIds) => inTurn(() => after(reads.v2.userEmails(principal.tenantId, userIds), (pairs) => new Map(pairs))),
    bulkUpsert(principal: Principal, items: readonly Upsert[]): Promise<BulkOutcome> {
      const unstorable = engine.textHoldsNul ? undefined : unstorableGroups(items);
      return unstorable ? Promise.resolve({ broken: unstorable }) : engine.bulkUpsert(principal.tenantId, items);
    },
    tables: (principal, key) => inTurn(() => after(reads.tables(principal.tenantId, key), (rows) => rows.map(tableOf))),
    reportingSchema: (principal) => inTurn(() => reads.reportingSchema(principal.tenantId)),
    health: () => engine.health(),
    databaseBytes: () => engine.databaseBytes(),

    findTenant: async (name) => reads.findTenant(name),
    createKey: (tenantName) =>
      engine.inWriteTransaction(async (steps) => {
        const tenant = await steps.ensureTenant(tenantName);
        const { id, key, secretHash } = newKey();
        await steps.insertKey({ id, tenantId: tenant.id, secretHash, createdAt: new Date().toISOString() });
        return { id, key };
      }),
    revokeKey: async (keyOrId) => keys.revoke(keyIdOf(keyOrId), new Date().toISOString()),
    listKeys: async (tenantName) => keys.list(tenantName),

    loadTenant: (tenantName, options, work) =>
      engine.inWriteTransaction(async (steps) => {
        const tenant = await steps.ensureTenant(tenantName);
        await steps.lockTenant(tenant.id);
        if (options.mustBeEmpty && (await steps.hasData(tenant.id))) {
          throw new TenantNotEmpty(`tenant ${JSON.stringify(tenantName)} already has data; seed another tenant or database`);
        }
        if (options.replace) await steps.deleteData(tenant.id);
        await steps.dataChanged(tenant.id);
        const stamp = await steps.nextStamp(tenant.id, options.replace === true);
        return work(await TenantLoader.open(steps.loadSteps(tenant.id), stamp, checkText));
      }),
    readTenant: (tenantName, work) =>
      engine.inSnapshot(async (steps) => {
        const tenant = await steps.reads.findTenant(tenantName);
        return tenant && work(datasetReads(steps, tenant));
      }),
    check: () => engine.inSnapshot((steps) => checkInvariants(steps.invariants)),
    backup: (target) => engine.backup(target),
    close: () => engine.close(),
  };
  return translatingErrors(store, (error) => engine.storeError(error));
}


