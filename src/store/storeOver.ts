import type { Upsert } from '../domain/bulkItems.js';
import { narrows } from '../domain/reportingFilter.js';
import { keyIdOf,newKey,parseKey,secretMatches } from './apiKeys.js';
import { unstorableGroups,unstorableUserIds } from './writes/attributionBulk.js';
import { datasetReads,tableOf } from './admin/datasetReading.js';
import { after,type Answer } from './vocabulary/answer.js';
import type { Engine } from './engine/engine.js';
import type { EngineReads } from './engine/readSteps.js';
import { translatingErrors } from './errorTranslation.js';
import { fairQueue } from './requests/fairQueue.js';
import { checkInvariants } from './admin/invariantCheck.js';
import { textCheckFor } from './loading/loadChecks.js';
import { TenantLoader } from './loading/tenantLoader.js';
import { changeScope,readChanges } from './paging/changePaging.js';
import { readPage,scopeOf } from './paging/pageReading.js';
import { readV2Page } from './paging/v2Paging.js';
import type { PagedSource } from './engine/pagedSource.js';
import { rememberedKeys,type KnownKey } from './requests/rememberedKeys.js';
import { DEFAULT_READ_ROUTING,readRouter,type ReadRoutingOptions,type ReadServer } from './requests/readRouting.js';
import { fingerprintOf } from './writes/idempotency.js';
import { errorOfFailedTable } from './imports/tableImports.js';
import type { ImportTask } from './vocabulary/writeShapes.js';
import type { TenantWrite,WriteOutcome,WrittenBy } from './vocabulary/writeShapes.js';
import { StoreFull,StoreUnavailable,TenantNotEmpty } from './vocabulary/storeErrors.js';
import type { WriteOptions,BulkOutcome } from './vocabulary/writeShapes.js';
import type { Principal } from './vocabulary/tenancy.js';
import type { Source } from './vocabulary/readShapes.js';
import type { Store } from './store.js';
import type { StoreLog } from './vocabulary/storeLog.js';
import { sharedRequestCount } from './threads/requestsInProgress.js';
import type { RequestsInProgress } from './vocabulary/requestCount.js';

/**
 * What a key grants: its tenant, what a read of the tenant needs at once, and the server its
 * reads go to (the server the key was looked up on: the version is that server's).
 */
interface Grant extends Principal {
  /** The key's id, to look it up again on another server. */
  readonly keyId: string;
  /** The dimension fields of a record whose user holds no group. */
  emptyFragment: string;
  /** The version of the tenant's data when the key was looked up (see `Total.version`). */
  dataVersion: string;
  /** A read replica, or the primary (`undefined`). */
  server: ReadServer;
  /** The replica's replay position known before its reads (a lower bound). */
  position: bigint | undefined;
}

/** A consistency token as the store issues them (the decimal of a log position), or `undefined` for anything else. */
const positionOf = (token: string | undefined): bigint | undefined => (token !== undefined && /^[0-9]{1,20}$/.test(token) ? BigInt(token) : undefined);

export interface StoreOptions {
  /** How reads are spread over the engine's read replicas (requests/readRouting.ts). */
  routing: ReadRoutingOptions;
  log: StoreLog;
  /** The count the engine's threads were given, if any (see `Store.requestsInProgress`). */
  requestsInProgress?: RequestsInProgress;
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
 * SQL and connections (engine/engine.ts); here are the key check, the data versions, which listing a
 * request reads and how it is paged, the order of a load's steps, the export and the checks.
 * Every operation's errors pass through the engine's translation into the store's own.
 */
export function storeOver(engine: Engine, options: StoreOptions = { routing: DEFAULT_READ_ROUTING, log: { warn() {}, error() {} } }): Store {
  const { reads, keys } = engine;
  const logPosition = engine.logPosition?.bind(engine);
  const router = engine.replicas.length > 0 && logPosition ? readRouter(engine.replicas, logPosition, options.routing, options.log) : undefined;
  const unreachable = (error: unknown) => engine.storeError(error) instanceof StoreUnavailable;
  const checkText = textCheckFor(engine.textHoldsNul);
  // Reads that hold the thread (SQLite's) are taken in turns; others run as they come.
  const inTurn: <T>(work: () => Answer<T>) => Promise<T> = engine.synchronousReads ? fairQueue() : async (work) => work();

  const grant = (principal: Principal) => principal as Grant;
  // On an engine that can tell whether anything was committed (SQLite), the primary's key
  // checks are remembered until it was (requests/rememberedKeys.ts).
  const remembered = engine.changeCounter && rememberedKeys<Grant>(engine.changeCounter);
  const lookUpKey = async (id: string): Promise<KnownKey<Grant> | null> => {
    const counter = remembered?.counter();
    const stored = await keys.lookup(id);
    const known = stored
      ? {
          secretHash: stored.secretHash,
          grant: stored.revoked
            ? undefined
            : ({
                keyId: id,
                tenantId: stored.tenantId,
                emptyFragment: stored.emptyFragment,
                dataVersion: versionText(stored.tenantId, stored.dataVersion),
                scope: stored.scope,
                server: undefined,
                position: undefined,
              } satisfies Grant),
        }
      : null;
    if (remembered && counter !== undefined) remembered.remember(id, counter, known);
    return known;
  };

  /** The key `keyId` with `secret` looked up on `server`: its grant, or `undefined`. */
  const grantOn = async (server: ReadServer, position: bigint | undefined, keyId: string, secret: string): Promise<Grant | undefined> => {
    if (!server) {
      const recalled = remembered?.recall(keyId);
      const known = recalled === undefined ? await lookUpKey(keyId) : recalled;
      // The same work whether the id is unknown, the secret wrong or the key revoked. A copy:
      // a request may move its grant to the primary.
      if (!secretMatches(secret, known?.secretHash)) return undefined;
      return known?.grant && { ...known.grant };
    }
    const stored = await server.keys.lookup(keyId);
    if (!secretMatches(secret, stored?.secretHash) || !stored || stored.revoked) return undefined;
    const dataVersion = versionText(stored.tenantId, stored.dataVersion);
    return { keyId, tenantId: stored.tenantId, emptyFragment: stored.emptyFragment, dataVersion, scope: stored.scope, server, position };
  };
  /** The grant's reads moved to the primary, with the primary's version of the tenant's data. */
  const moveToPrimary = async (held: Grant): Promise<void> => {
    router?.servedByPrimary();
    const stored = await keys.lookup(held.keyId);
    held.server = undefined;
    held.position = undefined;
    if (stored) {
      held.emptyFragment = stored.emptyFragment;
      held.dataVersion = versionText(stored.tenantId, stored.dataVersion);
    }
  };
  /**
   * Runs a request's reads on its server; on a replica that fails (taken out of the rotation
   * when it stops answering), or whose answer `onPrimary` says only the primary can give, again
   * on the primary.
   */
  const onServer = async <T>(principal: Principal, work: (on: EngineReads) => Answer<T>, onPrimary?: (result: T) => boolean): Promise<T> => {
    const held = grant(principal);
    if (held.server) {
      try {
        const result = await work(held.server.reads);
        if (!onPrimary?.(result)) return result;
      } catch (error) {
        // Whatever failed on a replica (it went away; a query cancelled by the replay of a
        // conflicting change, as hot standbys do) is asked of the primary, which has the last word.
        router!.failed(held.server, error, unreachable(error));
      }
      await moveToPrimary(held);
    }
    return inTurn(() => work(reads));
  };

  /**
   * A write of the tenant, with its `Idempotency-Key` when it has one, and its outcome with,
   * once written, its consistency token: the log's position after the commit (none if the
   * server went away meanwhile).
   */
  const write = async <W extends TenantWrite>(
    principal: Principal,
    tenantWrite: W,
    options: WriteOptions = {},
    fingerprinted: readonly unknown[] = tenantWrite.items,
  ): Promise<WriteOutcome<WrittenBy<W>>> => {
    const key = options.idempotencyKey;
    const idempotency = key === undefined ? undefined : { key, fingerprint: fingerprintOf(tenantWrite.kind, fingerprinted), at: Date.now() };
    const outcome = await engine.write(principal.tenantId, { ...tenantWrite, idempotency });
    if (!('written' in outcome) || !logPosition) return outcome;
    const position = await logPosition().catch(() => undefined);
    return position === undefined ? outcome : { ...outcome, consistency: position.toString() };
  };

  const sourceOf = (reads: EngineReads, principal: Principal, source: Source): Answer<PagedSource | undefined> => {
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
    async authenticate(presented, read) {
      const parsed = parseKey(presented);
      if (!parsed) return undefined;
      if (read === undefined || router === undefined) return grantOn(undefined, undefined, parsed.id, parsed.secret);
      const { server, position } = await router.choose(positionOf(read.consistency));
      if (server) {
        try {
          const granted = await grantOn(server, position, parsed.id, parsed.secret);
          if (granted) return granted;
          // Not valid there: perhaps a key created a moment ago, which the replica has not replayed yet.
        } catch (error) {
          router.failed(server, error, unreachable(error));
        }
        router.servedByPrimary();
      }
      return grantOn(undefined, undefined, parsed.id, parsed.secret);
    },
    servedBy(principal) {
      if (!router) return undefined;
      const { server, position } = grant(principal);
      return server ? `${server.name};position=${position}` : 'primary';
    },
    readServers: () => router?.states() ?? [],
    page: (principal, source, query) =>
      onServer(principal, (on) =>
        after(sourceOf(on, principal, source), (paged) => {
          if (!paged) return 'unknownTable' as const;
          return after(readPage(paged, query, () => scopeOf(source)), (page) =>
            typeof page === 'string' ? page : { ...page, version: grant(principal).dataVersion },
          );
        }),
      ),
    total: (principal, source) =>
      onServer(principal, (on) =>
        after(sourceOf(on, principal, source), (paged) =>
          paged && after(paged.total(), (count) => ({ count, version: grant(principal).dataVersion })),
        ),
      ),
    // A token of changes a replica has not replayed yet is answered by the primary (docs/scaling.md).
    changes: async (principal, source, query) => {
      const page = await onServer(
        principal,
        (on) => {
          const { tenantId, emptyFragment } = grant(principal);
          const changes = source.kind === 'reporting' ? on.reportingChanges(tenantId, emptyFragment) : on.tableChanges(tenantId, source.table);
          return after(changes, (found) => {
            if (!found) return 'unknownTable' as const;
            return after(readChanges(found, query, tenantId, changeScope(source)), (page) =>
              typeof page === 'string' ? page : { ...page, version: grant(principal).dataVersion },
            );
          });
        },
        (page) => page === 'ahead',
      );
      return page === 'ahead' ? 'badToken' : page;
    },
    v2Page: (principal, structure, query) =>
      onServer(principal, (on) => {
        const { tenantId } = principal;
        const reads = structure.kind === 'statements' ? on.v2Statements(tenantId) : on.v2TableRecords(tenantId, structure.key);
        return after(reads, (found) => {
          if (!found) return 'unknownStructure' as const;
          return after(readV2Page(found, query), (page) => (typeof page === 'string' ? page : { ...page, version: grant(principal).dataVersion }));
        });
      }),
    async bulkUpsert(principal: Principal, items: readonly Upsert[], options?: WriteOptions): Promise<BulkOutcome> {
      const unstorable = engine.textHoldsNul ? undefined : unstorableGroups(items);
      if (unstorable) return { broken: unstorable };
      return write(principal, { kind: 'attributions', items }, options);
    },
    async upsertUsers(principal, items, options) {
      const unstorable = engine.textHoldsNul ? undefined : unstorableUserIds(items);
      if (unstorable) return { broken: unstorable };
      return write(principal, { kind: 'users', items }, options);
    },
    archiveUsers: (principal, items, options) => write(principal, { kind: 'archive', items }, options),
    // The push's fingerprint is its table, flags and the hash of its lines, not its time.
    pushRecords: (principal, push, staged, options) => write(principal, { kind: 'push', items: [{ ...push, at: Date.now() }], staged }, options, [push]),
    importOf: (principal, id) => inTurn(() => reads.importOf(principal.tenantId, id)),
    pendingImports: () => inTurn(() => reads.pendingImports()),
    async runImport({ tenantId, importPk }, owner, replaces) {
      const task = (): ImportTask => ({ importPk, owner, at: Date.now() });
      const claim = await engine.write(tenantId, { kind: 'importClaim', items: [{ ...task(), replaces }] });
      if (!('written' in claim) || typeof claim.written === 'string') return;
      for (const table of claim.written.tables) {
        let done;
        try {
          done = await engine.write(tenantId, { kind: 'importTable', items: [{ ...task(), table }] });
        } catch (thrown) {
          const error = engine.storeError(thrown);
          if (error instanceof StoreUnavailable) throw error;
          if (!(error instanceof StoreFull)) options.log.error({ err: thrown, tenantId, importPk, table }, 'a table of an import failed');
          const failure = errorOfFailedTable(error, (e) => e instanceof StoreFull);
          done = await engine.write(tenantId, { kind: 'importFailed', items: [{ ...task(), table, error: failure }] });
        }
        if ('written' in done && done.written === 'notMine') return;
      }
      await engine.write(tenantId, { kind: 'importFinish', items: [task()] });
    },
    tables: (principal, key) => onServer(principal, (on) => after(on.tables(principal.tenantId, key), (rows) => rows.map(tableOf))),
    reportingSchema: (principal) => onServer(principal, (on) => on.reportingSchema(principal.tenantId)),
    health: () => engine.health(),
    databaseBytes: () => engine.databaseBytes(),

    findTenant: async (name) => reads.findTenant(name),
    createKey: (tenantName, scope = 'write') =>
      engine.inWriteTransaction(async (steps) => {
        const tenant = await steps.ensureTenant(tenantName);
        const { id, key, secretHash } = newKey();
        await steps.insertKey({ id, tenantId: tenant.id, secretHash, createdAt: new Date().toISOString(), scope });
        return { id, key };
      }),
    async revokeKey(keyOrId) {
      const revoked = await keys.revoke(keyIdOf(keyOrId), new Date().toISOString());
      // A commit on the read connection itself, which its change counter does not count.
      remembered?.forget();
      return revoked;
    },
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
    distribution: async () => engine.distribution?.(),
    requestsInProgress: options.requestsInProgress ?? sharedRequestCount(),
    backup: (target) => engine.backup(target),
    async compact() {
      const bytesBefore = await engine.databaseBytes();
      await engine.compact();
      return { bytesBefore, bytesAfter: await engine.databaseBytes() };
    },
    close: () => {
      router?.close();
      return engine.close();
    },
  };
  return translatingErrors(store, (error) => engine.storeError(error));
}


