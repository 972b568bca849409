import type { InvariantReads, StatementMismatch } from '../engine/snapshotSteps.js';
import { firstManagerCycle } from '../../domain/bulkChecks.js';
import { formatMonth, type MonthIndex } from '../../domain/months.js';
import { renderDimensionFragment } from '../../domain/reportingJson.js';
import type { Tenant } from '../vocabulary/tenancy.js';
import type { Violation, ViolationKind } from '../vocabulary/adminShapes.js';

type TenantCheck = (reads: InvariantReads, tenant: Tenant) => Promise<string | undefined>;

/** The data model's invariants, one check per kind of violation. */
const TENANT_CHECKS: readonly (readonly [ViolationKind, TenantCheck])[] = [
  ['group-overlap', groupOverlap],
  ['manager-overlap', managerOverlap],
  ['manager-cycle', managerCycle],
  ['archived-manager', archivedManager],
  ['dimension-fields', dimensionFields],
  ['user-objects', userObjects],
  ['positions', positions],
  ['v2-records', async (reads, tenant) => {
    const record = await reads.v2Mismatch(tenant.id);
    return record && `${record}: no v2 text, a v2 text whose id is not keyed standard.id, or a time of last change that is not the time of its change stamp (docs/rules.md#v2-reads)`;
  }],
  ['statements', async (reads, tenant) => {
    const found = await reads.statementMismatch(tenant.id);
    return found && statementProblem(found);
  }],
];

/**
 * Every kind of violation found, each with its first example: the storage's, then the data
 * model's, tenant by tenant. A check that cannot run (a storage so damaged that the read
 * fails) is itself reported under its kind.
 */
export async function checkInvariants(reads: InvariantReads): Promise<Violation[]> {
  const found = await reads.storage();
  const tenants = (await reads.tenants()).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const [kind, check] of TENANT_CHECKS) {
    for (const tenant of tenants) {
      let example: string | undefined;
      try {
        example = await check(reads, tenant);
      } catch (error) {
        example = `could not be checked: ${(error as Error).message}`;
      }
      if (example !== undefined) {
        found.push({ kind, example: `tenant ${JSON.stringify(tenant.name)}: ${example}` });
        break;
      }
    }
  }
  return found;
}

/** A month as the wire writes it, or its index when the wire has none (a month stored out of range). */
function monthText(month: MonthIndex): string {
  try {
    return formatMonth(month);
  } catch {
    return `month index ${month} (outside 0000-01..9999-12)`;
  }
}

async function groupOverlap(reads: InvariantReads, tenant: Tenant): Promise<string | undefined> {
  const o = await reads.groupOverlap(tenant.id);
  return o && `user ${o.email} is in groups ${JSON.stringify(o.earlier)} and ${JSON.stringify(o.later)} of dimension ${JSON.stringify(o.dimension)} in ${monthText(o.month)}`;
}

async function managerOverlap(reads: InvariantReads, tenant: Tenant): Promise<string | undefined> {
  const o = await reads.managerOverlap(tenant.id);
  return o && `user ${o.email} has managers ${o.earlier} and ${o.later} in ${monthText(o.month)}`;
}

async function managerCycle(reads: InvariantReads, tenant: Tenant): Promise<string | undefined> {
  const cycle = firstManagerCycle(await reads.managerEdges(tenant.id));
  if (!cycle) return undefined;
  const emails = [];
  for (const pk of [...cycle.users, cycle.users[0]!]) emails.push(await reads.email(tenant.id, pk));
  const when = cycle.month === null ? 'in every month' : `in ${monthText(cycle.month)}`;
  return `managers go round in a cycle ${when}: ${emails.join(' is managed by ')}`;
}

async function archivedManager(reads: InvariantReads, tenant: Tenant): Promise<string | undefined> {
  const found = await reads.archivedManager(tenant.id);
  return found && `user ${found.manager}, archived after ${monthText(found.lastMonth)}, manages ${found.report} in ${monthText(found.month)}`;
}

async function dimensionFields(reads: InvariantReads, tenant: Tenant): Promise<string | undefined> {
  const keys = await reads.dimensionKeys(tenant.id);
  const empty = renderDimensionFragment(keys, [], 0);
  const storedEmpty = await reads.emptyFragment(tenant.id);
  if (storedEmpty !== empty) return `the fields of a user in no group are stored as ${storedEmpty}, the dimensions give ${empty}`;
  for await (const users of reads.userFragments(tenant.id)) {
    for (const user of users) {
      for (const [month, fragment] of user.stored) {
        const rendered = renderDimensionFragment(keys, user.periods, month);
        if (rendered !== fragment) {
          return `user ${user.email} in ${monthText(month)}: dimension fields stored as ${fragment}, the group attributions give ${rendered}`;
        }
      }
    }
  }
  const orphan = await reads.recordWithoutFragment(tenant.id);
  if (orphan) return `reporting record ${JSON.stringify(orphan.id)}: no dimension fields stored for user ${orphan.email} in ${monthText(orphan.month)}`;
  return undefined;
}

async function userObjects(reads: InvariantReads, tenant: Tenant): Promise<string | undefined> {
  const found = await reads.userObjectMismatch(tenant.id);
  if (!found) return undefined;
  if ('recordId' in found) return `reporting record ${JSON.stringify(found.recordId)}: its stored parts are not its texts cut around its user's object`;
  return `user ${found.email} in ${monthText(found.month)}: the user object kept for its records is ${found.kept}, the user's is ${found.user}`;
}

async function positions(reads: InvariantReads, tenant: Tenant): Promise<string | undefined> {
  const gap = await reads.positionGap(tenant.id);
  return gap && `${gap.what}: ${gap.count} records hold positions ${gap.min}..${gap.max}, not 0..${gap.count - 1}`;
}

/** What is wrong with a statement (docs/rules.md#statements). */
function statementProblem(found: StatementMismatch): string {
  const what = `the statement of user ${found.email} in ${monthText(found.month)}`;
  if (!found.stored) return `${what} is not stored, though the user has ${found.lines} reporting record(s) in that month`;
  if (found.lines === 0) return `${what} is stored without any reporting record: a statement is made of its lines`;
  const total = (micros: string | null, currency: string | null) =>
    micros === null ? 'no total' : `${decimalOfMillionths(micros)} ${currency === null ? '(no currency)' : String(JSON.parse(currency))}`;
  const lines = found.linesTotal === null ? 'are in more than one currency' : `add up to ${total(found.linesTotal, found.linesCurrency)}`;
  return `${what} has ${total(found.storedTotal, found.storedCurrency)} stored, its ${found.lines} reporting record(s) ${lines}`;
}

/** An integer number of millionths as a decimal: `-1250500000` -> `-1250.5`. */
function decimalOfMillionths(text: string): string {
  const micros = BigInt(text);
  const magnitude = micros < 0n ? -micros : micros;
  const fraction = String(magnitude % 1_000_000n).padStart(6, '0').replace(/0+$/, '');
  return `${micros < 0n ? '-' : ''}${magnitude / 1_000_000n}${fraction === '' ? '' : `.${fraction}`}`;
}
