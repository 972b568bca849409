import { itemRulesBroken, unknownUser, type RuleViolation, type RulesBroken } from './bulkItems.js';
import type { UserRef } from './userRef.js';
import { asciiLowerCase } from './emailKey.js';
import { formatMonth, type MonthIndex } from './months.js';
import type { Period } from './periods.js';

/**
 * The items of `DELETE /v1/users/archive/bulk` (docs/rules.md#archived-users) and the rules they
 * can break, as pure decisions: the store reads the users and their reports around them.
 */

/** An archive item: `user` is active until `end` (its last month), archived from the month after. */
export interface ArchiveItem {
  /** The e-mail address as sent. */
  readonly user: string;
  readonly end: MonthIndex;
}

/** An item with its stored user. */
export interface ResolvedArchive extends ArchiveItem {
  readonly index: number;
  readonly userRow: UserRef;
}

/** A user someone reports to after a month: the first such report found. */
export interface ReportAfter {
  readonly managerPk: number;
  /** The e-mail address of the user managed. */
  readonly reportEmail: string;
  /** The first month past the archive month in which it holds. */
  readonly month: MonthIndex;
}

/**
 * The last month of an archive item (docs/rules.md#archived-users): its `end_date`, or, when it
 * sends none, the month `now` falls in, in UTC: the user is archived from the next month on.
 */
export function archiveEnd(endDate: MonthIndex | undefined, now: Date): MonthIndex {
  return endDate ?? now.getUTCFullYear() * 12 + now.getUTCMonth();
}

/** Each item with its stored user (`users`: by the e-mail as sent); unknown users and users named twice are violations. */
export function resolveArchives(items: readonly ArchiveItem[], users: ReadonlyMap<string, UserRef>): ResolvedArchive[] | RulesBroken {
  const violations: RuleViolation[] = [];
  const resolved: ResolvedArchive[] = [];
  const firstOf = new Map<string, number>();
  for (const [index, item] of items.entries()) {
    const userRow = users.get(item.user);
    const key = asciiLowerCase(item.user);
    const earlier = firstOf.get(key);
    if (!userRow) violations.push(unknownUser(index, 'user', item.user));
    else if (earlier !== undefined) violations.push({ index, field: 'user', message: `names the same user as /data/${earlier}` });
    else resolved.push({ ...item, index, userRow });
    if (earlier === undefined) firstOf.set(key, index);
  }
  return violations.length > 0 ? itemRulesBroken(violations) : resolved;
}

/** The items whose user still manages someone after the month they are archived from: every one. */
export function managersStillInCharge(items: readonly ResolvedArchive[], reports: readonly ReportAfter[]): RulesBroken | undefined {
  const violations = items.flatMap((item): RuleViolation[] => {
    const report = reports.find((row) => row.managerPk === item.userRow.pk);
    if (!report) return [];
    const message = `${item.userRow.email} manages ${report.reportEmail} in ${formatMonth(report.month)}, after ${formatMonth(item.end)}: end or move that manager attribution first`;
    return [{ index: item.index, field: 'user', message }];
  });
  return violations.length > 0 ? itemRulesBroken(violations) : undefined;
}

/**
 * Whether an attribution over `period` reaches past the archive month of `user` (an archived
 * user holds no attribution, as user or as manager, after its last month).
 */
export function pastArchive(user: UserRef, period: Period): boolean {
  return user.archivedAfter != null && (period.end === null || period.end > user.archivedAfter);
}

/** The violation of an item that attributes an archived user past its last month. */
export function archivedUser(index: number, field: 'user' | 'manager', user: UserRef): RuleViolation {
  return { index, field, message: `${user.email} is archived after ${formatMonth(user.archivedAfter!)}: no attribution may reach past that month` };
}
