import type { MonthIndex } from '../domain/months.js';
import type { ReportingUser } from '../domain/reportingJson.js';
import type { GroupAttributionInput, ManagerAttributionInput } from '../store/vocabulary/tenantWriter.js';
import type { Random } from './random.js';
import { CONTRIBUTOR_ROLES, COUNTRIES, FIRST_NAMES, LAST_NAMES, LEADER_ROLES, REGION_CALCULATION_CURRENCY, REGIONS, SEED_PERIOD, SEGMENTS, type RegionName, type RoleProfile } from './vocabulary.js';

/** A user of the seed with what the statement lines and deals are drawn from. */
export interface SalesPerson {
  user: ReportingUser;
  profile: RoleProfile;
  /** 0 VP, 1 director, 2 manager, 3 (CONTRIBUTOR) individual contributor; managers sit one level up. */
  level: number;
  /** First and last month employed (inclusive). */
  firstMonth: MonthIndex;
  lastMonth: MonthIndex;
  /** Personal multipliers of the role's quota and variable pay (around 1). */
  quotaFactor: number;
  payFactor: number;
  /** Log-scale bias of achievement: some sellers do consistently better than others. */
  performance: number;
}

export interface SalesForce {
  people: SalesPerson[];
  groupAttributions: GroupAttributionInput[];
  managerAttributions: ManagerAttributionInput[];
}

const MANAGER_LEVEL = 2;
const CONTRIBUTOR = 3;

/** Months before and after a change of group or manager, so that both periods show. */
const MIN_MONTHS_AROUND_CHANGE = 3;

/**
 * `userCount` users: one VP, about one director per 50 users, one manager per 9, the rest
 * individual contributors. Each reports to someone one level up, so the hierarchy has no cycle
 * in any month, even where a manager changes. Leaders stay the whole period; contributors may
 * join late or leave early.
 */
export function generateSalesForce(random: Random, userCount: number): SalesForce {
  const directorCount = Math.min(userCount - 1, Math.max(1, Math.round(userCount / 50)));
  const managerCount = Math.min(userCount - 1 - directorCount, Math.max(1, Math.round(userCount / 9)));
  const identities = identityFactory(random);
  const levelSizes = [1, directorCount, managerCount, userCount - 1 - directorCount - managerCount];
  const people = levelSizes
    .flatMap((size, level) => new Array<number>(size).fill(level))
    .map((level, index) => newPerson(random, identities(index), level));
  const levels = levelSizes.map((_, level) => people.filter((person) => person.level === level));
  const groupAttributions: GroupAttributionInput[] = [];
  const managerAttributions: ManagerAttributionInput[] = [];
  for (const person of people) {
    groupAttributions.push(...regionPeriods(random, person), ...segmentPeriods(random, person));
    const candidates = levels.slice(0, person.level).reverse().find((level) => level.length > 0);
    if (candidates) managerAttributions.push(...managerPeriods(random, person, candidates));
  }
  return { people, groupAttributions, managerAttributions };
}

function newPerson(random: Random, identity: Identity, level: number): SalesPerson {
  const profile = LEADER_ROLES[level] ?? random.weighted(CONTRIBUTOR_ROLES);
  let firstMonth: MonthIndex = SEED_PERIOD.first;
  let lastMonth: MonthIndex = SEED_PERIOD.last;
  if (level === CONTRIBUTOR && random.chance(0.2)) {
    firstMonth += random.between(1, SEED_PERIOD.last - SEED_PERIOD.first - 6);
  }
  if (level === CONTRIBUTOR && random.chance(0.12)) lastMonth = random.between(firstMonth + 3, SEED_PERIOD.last - 1);
  return {
    user: { ...identity, role: profile.role },
    profile,
    level,
    firstMonth,
    lastMonth,
    quotaFactor: random.logNormal(0, 0.15),
    payFactor: random.logNormal(0, 0.1),
    performance: 0.15 * random.normal(),
  };
}

type Identity = Omit<ReportingUser, 'role'>;

/** Makes the identity of the user at each index: unique id, e-mail and code. */
function identityFactory(random: Random): (index: number) => Identity {
  const ids = new Set<string>();
  const emails = new Set<string>();
  return (index) => {
    let id: string;
    do id = `usr_${hex(random.int(2 ** 32), 8)}${hex(random.int(2 ** 16), 4)}`;
    while (ids.has(id));
    ids.add(id);
    const first = random.pick(FIRST_NAMES);
    const last = random.pick(LAST_NAMES);
    const local = `${emailWord(first)}.${emailWord(last)}`;
    let email = `${local}@example.com`;
    for (let suffix = 2; emails.has(email); suffix += 1) email = `${local}${suffix}@example.com`;
    emails.add(email);
    const country = random.weighted(COUNTRIES.map((c) => [c, c.weight] as const));
    return {
      id,
      email,
      name: `${first} ${last}`,
      currency: country.currency,
      calculation_currency: random.chance(0.75) ? country.currency : REGION_CALCULATION_CURRENCY[country.region],
      country: country.code,
      code: `EMP-${String(10001 + index)}`,
    };
  };
}

function hex(value: number, digits: number): string {
  return value.toString(16).padStart(digits, '0');
}

/** `Zoë` -> `zoe`, `O'Brien` -> `obrien`, `de Vries` -> `devries`. */
function emailWord(name: string): string {
  return name.normalize('NFD').toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * Consecutive periods covering the person's employment, split at one month when `changes`:
 * open-ended while still employed at the end of the seed, closed when the person left.
 */
function employmentPeriods(
  random: Random,
  person: SalesPerson,
  changes: boolean,
): { start: MonthIndex; end: MonthIndex | null }[] {
  const end = person.lastMonth < SEED_PERIOD.last ? person.lastMonth : null;
  const span = person.lastMonth - person.firstMonth;
  if (!changes || span < 2 * MIN_MONTHS_AROUND_CHANGE) return [{ start: person.firstMonth, end }];
  const change = random.between(
    person.firstMonth + MIN_MONTHS_AROUND_CHANGE,
    person.lastMonth + 1 - MIN_MONTHS_AROUND_CHANGE,
  );
  return [
    { start: person.firstMonth, end: change - 1 },
    { start: change, end },
  ];
}

function homeRegion(user: ReportingUser): RegionName {
  return COUNTRIES.find((country) => country.code === user.country)!.region;
}

/** Region by country; about one in twelve relocates to another region mid-period. */
function regionPeriods(random: Random, person: SalesPerson): GroupAttributionInput[] {
  const home = homeRegion(person.user);
  const periods = employmentPeriods(random, person, random.chance(0.08));
  const moved = random.pick(REGIONS.filter((region) => region !== home));
  return periods.map((period, index) => ({
    user_id: person.user.id,
    dimension: 'region',
    group: index === 0 ? home : moved,
    ...period,
  }));
}

/** Managers and contributors cover a segment (some none); about one in seven moves up one. */
function segmentPeriods(random: Random, person: SalesPerson): GroupAttributionInput[] {
  if (person.level < MANAGER_LEVEL || random.chance(0.05)) return [];
  const segment = random.weighted(SEGMENTS.map((_segment, index) => [index, [35, 35, 20, 10][index]!] as const));
  const periods = employmentPeriods(random, person, segment < SEGMENTS.length - 1 && random.chance(0.15));
  return periods.map((period, index) => ({
    user_id: person.user.id,
    dimension: 'segment',
    group: SEGMENTS[segment + index]!,
    ...period,
  }));
}

/**
 * Reports to one of `candidates` (the nearest level up); about one in seven changes manager
 * mid-period. A relationship that holds since the start of the seed has no start month.
 */
function managerPeriods(
  random: Random,
  person: SalesPerson,
  candidates: readonly SalesPerson[],
): ManagerAttributionInput[] {
  const first = random.pick(candidates);
  const others = candidates.filter((candidate) => candidate !== first);
  const periods = employmentPeriods(random, person, others.length > 0 && random.chance(0.15));
  const second = others.length > 0 ? random.pick(others) : first;
  return periods.map((period, index) => ({
    user_id: person.user.id,
    manager_id: (index === 0 ? first : second).user.id,
    start: period.start === SEED_PERIOD.first ? null : period.start,
    end: period.end,
  }));
}
