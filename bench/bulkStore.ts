/**
 * The store of the bulk-PUT scenarios: one tenant with `users` users, three dimensions, and 50
 * attributions per user (each user: 15 two-month periods in each dimension, 5 six-month manager
 * periods under a user of a lower number, so the hierarchy has no cycle; 20,001 users give
 * 1,000,045), plus one reporting record per user and month of 2026 (so every upsert re-renders
 * dimension fields, docs/rules.md#metrics-and-dimensions). Everything follows from the numbers; the requests are drawn by
 * {@link bulkBodies}.
 *
 * Beside it, {@link TENANTS} more tenants of an eighth as many users each, built the same way:
 * the scenario of PUTs spread over tenants, which one tenant's lock does not serialise.
 */
import { mkdirSync } from 'node:fs';
import { openStore } from '../src/store/openStore.js';
import type { GroupAttributionInput, ManagerAttributionInput, TenantWriter } from '../src/store/vocabulary/tenantWriter.js';
import { formatMonth } from '../src/domain/months.js';
import { fixtureLine, fixtureUser } from '../test/support/fixture.js';

const FIRST_MONTH = 2025 * 12; // 2025-01
const GROUP_PERIODS = 15;
const GROUP_MONTHS = 2;
const MANAGER_PERIODS = 5;
const MANAGER_MONTHS = 6;
const DIMENSIONS: Record<string, string[]> = {
  region: ['EMEA', 'NA', 'LATAM', 'APAC', 'ANZ', 'DACH'],
  segment: ['SMB', 'Mid-Market', 'Enterprise', 'Strategic'],
  territory: Array.from({ length: 50 }, (_, i) => `T${i}`),
};

const email = (i: number) => `user${i}@bench.example`;
/** A manager of user `i` (i >= 1) in period `p`: always a user of a lower number. */
const managerOf = (i: number, p: number) => Math.floor(i / (6 + p));

const ATTRIBUTIONS_PER_USER = Object.keys(DIMENSIONS).length * GROUP_PERIODS + MANAGER_PERIODS;

/** The fewest users whose store holds at least `attributions` attributions (and 201 at least). */
export function usersFor(attributions: number): number {
  return Math.max(201, Math.ceil((attributions + MANAGER_PERIODS) / ATTRIBUTIONS_PER_USER));
}

export function attributionCount(users: number): number {
  return users * ATTRIBUTIONS_PER_USER - MANAGER_PERIODS;
}

/** How many tenants besides `bench` the bulk store holds, and their names. */
export const TENANTS = 8;
export const tenantName = (i: number) => `bench-${i}`;
/** Users of each of those tenants. */
export const tenantUsersFor = (users: number) => Math.max(201, Math.floor(users / TENANTS));

export interface BulkStore {
  /** A fresh key of the tenant `bench`. */
  key: string;
  /** A fresh key of each of the {@link TENANTS} other tenants, in order. */
  tenantKeys: string[];
}

/** Builds the store of `users` users in `workDir` unless it is there; returns its path and fresh keys. */
export async function prepareBulkStore(workDir: string, users: number): Promise<BulkStore & { dbPath: string }> {
  mkdirSync(workDir, { recursive: true });
  const dbPath = `${workDir}/bulk-${attributionCount(users)}-t${TENANTS}.db`;
  return { dbPath, ...(await fillBulkStore(dbPath, users)) };
}

/**
 * Fills the database at `location` (a file, or a PostgreSQL URL) with the tenants it lacks, and
 * returns fresh keys. A tenant already there is kept as it is (PUTs of earlier runs included).
 */
export async function fillBulkStore(location: string, users: number): Promise<BulkStore> {
  const store = await openStore(location, { role: 'command' });
  try {
    const tenants = [{ name: 'bench', users }, ...Array.from({ length: TENANTS }, (_, i) => ({ name: tenantName(i), users: tenantUsersFor(users) }))];
    for (const tenant of tenants) {
      if (!(await store.findTenant(tenant.name))) await store.loadTenant(tenant.name, {}, (writer) => fill(writer, tenant.users));
    }
    const keys = [];
    for (const tenant of tenants) keys.push((await store.createKey(tenant.name)).key);
    return { key: keys[0]!, tenantKeys: keys.slice(1) };
  } finally {
    await store.close();
  }
}

async function fill(writer: TenantWriter, users: number): Promise<void> {
  await writer.defineMetricsAndDimensions(['new_arr'], Object.keys(DIMENSIONS));
  await writer.upsertUsers(Array.from({ length: users }, (_, i) => fixtureUser('bench', i)));
  const groups: GroupAttributionInput[] = [];
  const managers: ManagerAttributionInput[] = [];
  for (let i = 0; i < users; i += 1) {
    for (const [dimension, names] of Object.entries(DIMENSIONS)) {
      for (let p = 0; p < GROUP_PERIODS; p += 1) {
        const start = FIRST_MONTH + p * GROUP_MONTHS;
        groups.push({ user_id: `u${i}`, dimension, group: names[(i + p) % names.length]!, start, end: start + GROUP_MONTHS - 1 });
      }
    }
    for (let p = 0; i > 0 && p < MANAGER_PERIODS; p += 1) {
      const start = FIRST_MONTH + p * MANAGER_MONTHS;
      managers.push({ user_id: `u${i}`, manager_id: `u${managerOf(i, p)}`, start, end: start + MANAGER_MONTHS - 1 });
    }
  }
  await writer.addGroupAttributions(groups);
  await writer.addManagerAttributions(managers);
  for (let month = 0; month < 12; month += 1) {
    await writer.upsertReportingRecords(
      Array.from({ length: users }, (_, i) => ({
        ...fixtureLine('bench', i, users),
        id: `r${month}-${i}`,
        date: `2026-${String(month + 1).padStart(2, '0')}-28`,
      })),
    );
  }
  await writer.finish();
}

/**
 * `count` request bodies of `items` items each: 85% group items (a period of 1 to 6 months, or
 * open, over the stored ones, so they trim, split and delete; now and then a new group name)
 * and 15% manager items (a manager of a lower number, so no cycle). The users of one body are
 * distinct, so no two items overlap. Deterministic for a given `count`, `items` and `users`.
 */
export function bulkBodies(count: number, items: number, users: number): string[] {
  let state = 12345;
  const random = (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
  const dimensionKeys = Object.keys(DIMENSIONS);
  return Array.from({ length: count }, () => {
    const picked = new Set<number>();
    while (picked.size < items) picked.add(1 + random(users - 1));
    const data = [...picked].map((user, index) => {
      const start = FIRST_MONTH + random(30);
      const end = random(10) === 0 ? null : formatMonth(start + random(6));
      if (index % 7 === 3) {
        return { user: email(user), manager: email(random(user)), start_date: random(4) === 0 ? null : formatMonth(start), end_date: end };
      }
      const dimension = dimensionKeys[random(dimensionKeys.length)]!;
      const names = DIMENSIONS[dimension]!;
      const group = random(20) === 0 ? `New ${random(1000)}` : names[random(names.length)]!;
      return { user: email(user), group_dimension: dimension, group, start_date: formatMonth(start), end_date: end };
    });
    return JSON.stringify({ data });
  });
}

/**
 * `body` (the `index`-th of {@link bulkBodies}) with the user of each group item moved `index`
 * times 67 places along the users: {@link bulkBodies}' draws come back to the same few users
 * (300 bodies of 200 items over 20,001 users name only about 950), so their stored periods soon
 * shrink to one wide period each; moved, successive bodies mostly find users with their 15
 * stored periods per dimension, as bodies over many users would. Manager items stay (a manager
 * is a user of a lower number, so the hierarchy has no cycle).
 */
export function spreadBody(body: string, index: number, users: number): string {
  const { data } = JSON.parse(body) as { data: { user: string; group_dimension?: string }[] };
  const moved = data.map((item) => {
    if (item.group_dimension === undefined) return item;
    const user = Number(/^user(\d+)@/.exec(item.user)![1]);
    return { ...item, user: email(1 + ((user - 1 + index * 67) % (users - 1))) };
  });
  return JSON.stringify({ data: moved });
}
