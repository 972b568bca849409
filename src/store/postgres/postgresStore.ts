import type { Upsert } from '../../domain/bulkItems.js';
import { narrows } from '../../domain/reportingFilter.js';
import type { PagedSource } from '../paging/pagedSource.js';
import { readPage, scopeOf } from '../paging/pageReading.js';
import { checkInvariants } from '../invariantCheck.js';
import { translatingErrors } from '../errorTranslation.js';
import {
  StoreBusy,
  StoreFull,
  StoreUnavailable,
  TenantNotEmpty,
  BackupUnsupported,
  type BulkOutcome,
  type LoadOptions,
  type PageOutcome,
  type PageQuery,
  type Principal,
  type Source,
  type Store,
  type StoreLog,
} from '../store.js';
import type { TenantWriter } from '../tenantWriting.js';
import { attributionReads } from './attributionReads.js';
import { changeScope, readChanges } from '../paging/changePaging.js';
import { bulkUpsert } from './bulkUpsert.js';
import { changeReads } from './changeReads.js';
import { changeStamps } from './changeStamps.js';
import { inTransaction, isDiskFull, isLockTimeout, isUnreachable, openPool } from './connection.js';
import { datasetReads } from './datasetReads.js';
import { discoveryReads } from './discoveryReads.js';
import { filteredReporting } from './filteredReporting.js';
import { invariantReads } from './invariantReads.js';
import { keyStatements, type PostgresPrincipal } from './keys.js';
import { migrate } from './migrations.js';
import { pagedReads } from './pagedReads.js';
import { PostgresTenantWriter } from './tenantWriter.js';
import { tenantStatements as tenants } from './tenantStatements.js';

export interface PostgresStoreOptions {
  /** Connections at most (`--db-pool`). */
  poolSize: number;
  /** How long a bulk upsert waits for another writer of its tenant before it is refused (503). */
  busyTimeoutMs: number;
  log: StoreLog;
}

/**
 * The PostgreSQL engine: a pool of connections to one database, shared by any number of server
 * processes (docs/rules.md#serving). Every read is one statement on any connection of the pool;
 * every write is one transaction that first takes its tenant's write lock
 * (tenantStatements.ts), so that writes of one tenant are serialised and those of different
 * tenants run side by side. Should the database go away, each request is refused with
 * `StoreUnavailable` (503, Retry-After) and the pool connects again once it is back; nothing is
 * to be restarted. Should its disk fill, each write that needs more room is refused with
 * `StoreFull` (507) and rolled back.
 *
 * Resolves once the database answers and its schema is up to date; rejects when it cannot be
 * reached (see `isUnreachable`) or migrated.
 */
export async function openPostgresStore(connectionString: string, options: PostgresStoreOptions): Promise<Store> {
  const pool = openPool(connectionString, {
    size: options.poolSize,
    onIdleError: (error) => options.log.warn({ err: error }, 'a database connection was lost; the pool opens another when needed'),
  });
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }

  const sourceOf = async (principal: Principal, source: Source): Promise<PagedSource | undefined> => {
    const { tenantId, emptyFragment } = principal as PostgresPrincipal;
    switch (source.kind) {
      case 'reporting':
        if (narrows(source)) return filteredReporting(pool, tenantId, emptyFragment, source);
        return pagedReads.reporting(pool, tenantId, emptyFragment);
      case 'tableRecords':
        return pagedReads.tableRecords(pool, tenantId, source.table);
      case 'groupAttributions':
        return attributionReads.groups(pool, tenantId, { user: source.user, dimension: source.dimension });
      case 'managerAttributions':
        return attributionReads.managers(pool, tenantId, { user: source.user });
    }
  };

  const store: Store = {
    authenticate: (presented) => keyStatements.authenticate(pool, presented),
    async page(principal, source, query: PageQuery): Promise<PageOutcome> {
      const paged = await sourceOf(principal, source);
      if (!paged) return 'unknownTable';
      const page = await readPage(paged, query, () => scopeOf(source));
      return typeof page === 'string' ? page : { ...page, version: (principal as PostgresPrincipal).dataVersion };
    },
    async total(principal, source) {
      const paged = await sourceOf(principal, source);
      return paged && { count: await paged.total(), version: (principal as PostgresPrincipal).dataVersion };
    },
    async changes(principal, source, query) {
      const { tenantId, emptyFragment, dataVersion } = principal as PostgresPrincipal;
      const reads = source.kind === 'reporting' ? changeReads.reporting(pool, tenantId, emptyFragment) : await changeReads.tableRecords(pool, tenantId, source.table);
      if (!reads) return 'unknownTable';
      const page = await readChanges(reads, query, tenantId, changeScope(source));
      return typeof page === 'string' ? page : { ...page, version: dataVersion };
    },
    bulkUpsert: (principal: Principal, items: readonly Upsert[]): Promise<BulkOutcome> => bulkUpsert(pool, principal.tenantId, items, options.busyTimeoutMs),
    tables: (principal, key) => discoveryReads.tables(pool, principal.tenantId, key),
    reportingSchema: (principal) => discoveryReads.reportingSchema(pool, principal.tenantId),
    async health() {
      await pool.query('SELECT 1');
    },
    async databaseBytes() {
      const { rows } = await pool.query<{ bytes: string }>('SELECT pg_database_size(current_database())::text AS bytes');
      return Number(rows[0]!.bytes);
    },
    findTenant: (name) => tenants.find(pool, name),
    createKey: (tenantName) => inTransaction(pool, async (client) => keyStatements.create(client, await tenants.ensure(client, tenantName))),
    revokeKey: (keyOrId) => keyStatements.revoke(pool, keyOrId),
    listKeys: (tenantName) => keyStatements.list(pool, tenantName),
    loadTenant<T>(tenantName: string, load: LoadOptions, work: (writer: TenantWriter) => Promise<T>): Promise<T> {
      return inTransaction(pool, async (client) => {
        const tenant = await tenants.ensure(client, tenantName);
        await tenants.lockForWriting(client, tenant.id);
        if (load.mustBeEmpty && (await tenants.hasData(client, tenant))) {
          throw new TenantNotEmpty(`tenant ${JSON.stringify(tenantName)} already has data; seed another tenant or database`);
        }
        if (load.replace) await tenants.deleteData(client, tenant);
        await tenants.dataChanged(client, tenant.id);
        await changeStamps.forLoad(client, tenant.id, load.replace === true);
        return work(await PostgresTenantWriter.open(client, tenant.id));
      });
    },
    readTenant(tenantName, work) {
      return inTransaction(
        pool,
        async (client) => {
          const tenant = await tenants.find(client, tenantName);
          return tenant && work(datasetReads(client, tenant));
        },
        { begin: 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' },
      );
    },
    check: () =>
      inTransaction(pool, (client) => checkInvariants(invariantReads(client)), { begin: 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' }),
    async backup() {
      throw new BackupUnsupported(
        "a PostgreSQL database is copied with PostgreSQL's own tools, consistent while servers write: " +
          "pg_dump --format=custom --file=OUT 'postgres://...' (pg_restore loads it into an empty database)",
      );
    },
    close: () => pool.end(),
  };
  return translatingErrors(store, storeError);
}

/** PostgreSQL's errors as the store's: a server gone (503), a lock wait past its timeout (503), a full disk (507). */
function storeError(error: unknown): unknown {
  if (isUnreachable(error)) return new StoreUnavailable('The database cannot be reached; try again.', 1, { cause: error });
  if (isLockTimeout(error)) return new StoreBusy('The database is busy with another writer of this tenant; try again.', 1, { cause: error });
  if (isDiskFull(error)) return new StoreFull({ cause: error });
  return error;
}
