import { openStore } from '../../src/store/openStore.js';
import type { Store } from '../../src/store/store.js';
import type { ReportingLineInput } from '../../src/store/vocabulary/tenantWriter.js';
import type { ReportingUser } from '../../src/domain/reportingJson.js';
import { copyMigratedSqlite } from './sqliteTemplate.js';

/**
 * A small tenant whose every value follows from its index, so tests can compute what the API
 * must return without reading it back from the code under test:
 * - users `u0..u{users-1}`, e-mail `user{i}@{tenant}.example` (or `@{emailDomain}`);
 * - reporting record i: id `{tenant}-r{i}`, user `u{i % users}`, date 2026-01-15 plus `i % 12`
 *   months (2026-01..2026-12), payment `i + 0.5`, metric `new_arr` = `i * 10` (null when i % 5 == 0);
 * - dimensions `region` and `segment`; user u0 is in region EMEA from 2026-03 to 2026-05 and in
 *   region APAC from 2026-09 (open); nobody has a segment;
 * - data table `deals`: `deals` records `{tenant}-d{i}` with name `Deal {i}`, owner u{i % users},
 *   amount `i * 100` EUR.
 */
export interface FixtureSpec {
  tenant: string;
  users?: number;
  records?: number;
  deals?: number;
  /** Domain of the users' e-mails (default `<tenant>.example`): tenants given one domain share e-mails. */
  emailDomain?: string;
}

export interface Fixture {
  tenantId: number;
  key: string;
  users: number;
  records: number;
  deals: number;
}

export const fixtureUser = (tenant: string, i: number, emailDomain = `${tenant}.example`): ReportingUser => ({
  id: `u${i}`,
  email: `user${i}@${emailDomain}`,
  name: `User ${i}`,
  role: 'Account Executive',
  currency: 'EUR',
  calculation_currency: 'EUR',
  country: 'FR',
  code: `C${i}`,
});

export const fixtureMonth = (i: number): string => `2026-${String((i % 12) + 1).padStart(2, '0')}`;

export function fixtureLine(tenant: string, i: number, users: number): ReportingLineInput {
  return {
    id: `${tenant}-r${i}`,
    user_id: `u${i % users}`,
    date: `${fixtureMonth(i)}-15`,
    plan: 'AE 2026',
    payment: i + 0.5,
    payment_currency: 'EUR',
    target: 1000,
    target_currency: 'EUR',
    target_achievement: null,
    on_target_earning: 60000,
    on_target_earning_currency: 'EUR',
    achievement: i,
    achievement_currency: 'EUR',
    metrics: { new_arr: { value: i % 5 === 0 ? null : i * 10, currency: 'USD' } },
  };
}

/** A new database at `path` with no tenant, made as `seed` and `import` make one (through the store). */
export async function emptyDatabaseFile(path: string): Promise<void> {
  await copyMigratedSqlite(path);
  await (await openStore(path, { role: 'command' })).close();
}

/** The database `path` (as `--db` names it) holding the fixture's tenant (for tests of processes that open it). */
export async function fixtureFile(path: string, spec: FixtureSpec): Promise<Fixture> {
  await copyMigratedSqlite(path);
  const store = await openStore(path, { role: 'command' });
  try {
    return await buildFixture(store, spec);
  } finally {
    await store.close();
  }
}

/** Writes the fixture's tenant through the store (any engine) and creates a key for it. */
export async function buildFixture(store: Store, spec: FixtureSpec): Promise<Fixture> {
  const users = spec.users ?? 3;
  const records = spec.records ?? 25;
  const deals = spec.deals ?? 7;
  await store.loadTenant(spec.tenant, {}, async (writer) => {
    await writer.defineMetricsAndDimensions(['new_arr'], ['region', 'segment']);
    await writer.upsertUsers(Array.from({ length: users }, (_, i) => fixtureUser(spec.tenant, i, spec.emailDomain)));
    await writer.addGroupAttributions([
      { user_id: 'u0', dimension: 'region', group: 'EMEA', start: 2026 * 12 + 2, end: 2026 * 12 + 4 },
      { user_id: 'u0', dimension: 'region', group: 'APAC', start: 2026 * 12 + 8, end: null },
    ]);
    const lines: ReportingLineInput[] = [];
    for (let i = 0; i < records; i += 1) lines.push(fixtureLine(spec.tenant, i, users));
    await writer.upsertReportingRecords(lines);
    await writer.defineDataTable('deals', 'Deals', [
      { key: 'name', type: 'string' },
      { key: 'owner_id', type: 'user' },
      { key: 'close_date', type: 'datetime' },
      { key: 'amount', type: 'amount' },
    ]);
    await writer.upsertTableRecords(
      'deals',
      Array.from({ length: deals }, (_, i) => ({
        id: `${spec.tenant}-d${i}`,
        name: `Deal ${i}`,
        owner_id: `u${i % users}`,
        close_date: `2026-03-${String((i % 28) + 1).padStart(2, '0')}T10:00:00.000Z`,
        amount: i * 100,
        amount_currency: 'EUR',
      })),
    );
    await writer.finish();
  });
  const tenant = (await store.findTenant(spec.tenant))!;
  return { tenantId: tenant.id, key: (await store.createKey(spec.tenant)).key, users, records, deals };
}
