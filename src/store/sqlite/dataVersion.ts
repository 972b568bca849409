import type { Db } from './db.js';

/**
 * The version of a tenant's data (`tenants.data_version`, migration 4): every transaction that
 * writes the tenant's data gives it a new random value, inside that transaction, so that it
 * commits or rolls back with the data. Readers take it from the key lookup of the request
 * (keys.ts), before the page: a version read before the data can only be older than the data
 * read, so a client holding it is at worst sent the same page again, never told that a changed
 * page is unchanged.
 */
export function dataVersionBumper(db: Db): (tenantId: number) => void {
  const bump = db.prepare<[number]>('UPDATE tenants SET data_version = random() WHERE id = ?');
  return (tenantId) => void bump.run(tenantId);
}

/** The version as the store hands it out: opaque, and distinct across tenants. */
export const versionText = (tenantId: number, dataVersion: string): string => `${tenantId}.${dataVersion}`;
