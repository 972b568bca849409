import { formatMonth, type MonthIndex } from './months.js';
import { startBound, type Period } from './periods.js';

/**
 * The items of `PUT /v1/users/groups/bulk` once their months are parsed, and the wording of the
 * rules of docs/rules.md#bulk-attributions they can break. Pure values: the store resolves
 * e-mails and keys, the HTTP layer turns a {@link RuleViolation} into a `422` pointer.
 */

/** A group item: `user` holds `group` of dimension `dimension` over the period. */
export interface GroupUpsert extends Period {
  readonly kind: 'group';
  /** The e-mail address as sent. */
  readonly user: string;
  /** The dimension key as sent. */
  readonly dimension: string;
  readonly group: string;
  readonly start: MonthIndex;
}

/** A manager item: `manager` manages `user` over the period (`start: null`: since always). */
export interface ManagerUpsert extends Period {
  readonly kind: 'manager';
  readonly user: string;
  readonly manager: string;
}

export type Upsert = GroupUpsert | ManagerUpsert;

/**
 * A rule of the bulk operation that item `index` breaks: `422`, pointing at
 * `/data/<index>/<field>`, or at the item itself when `field` is absent (`index` absent: the
 * request as a whole).
 */
export interface RuleViolation {
  readonly index?: number;
  /** The item's field (`user`, `manager`, `group_dimension`, a user's field). */
  readonly field?: string;
  /** Where else in the request the rule points (`/header/Idempotency-Key`), instead of an item. */
  readonly pointer?: string;
  readonly message: string;
}

/** Rules broken by a request, with a one-line summary. */
export interface RulesBroken {
  readonly detail: string;
  readonly violations: readonly RuleViolation[];
}

export const unknownUser = (index: number, field: 'user' | 'manager', email: string): RuleViolation => ({
  index,
  field,
  message: `no user with e-mail ${email}`,
});

export const unknownDimension = (index: number, key: string): RuleViolation => ({
  index,
  field: 'group_dimension',
  message: `no dimension with key ${key}`,
});

export const ownManager = (index: number): RuleViolation => ({
  index,
  field: 'manager',
  message: 'a user cannot be their own manager',
});

/** Each item's own rules (known users, manager, dimension): every violation found. */
export function itemRulesBroken(violations: readonly RuleViolation[]): RulesBroken {
  const items = new Set(violations.map((v) => v.index)).size;
  return { detail: `${items} item${items === 1 ? '' : 's'} break${items === 1 ? 's' : ''} a rule; nothing was written.`, violations };
}

/** Two items of one slot (same user and dimension, or same user's managers) share a month. */
export function payloadOverlap(items: readonly Upsert[], index: number, otherIndex: number): RulesBroken {
  const item = items[index]!;
  const other = items[otherIndex]!;
  const slot = item.kind === 'group' ? 'the same user and group_dimension' : 'the same user\'s manager';
  const shared = Math.max(startBound(item), startBound(other));
  const month = Number.isFinite(shared) ? ` (both hold ${formatMonth(shared)})` : ' (both hold every month before their ends)';
  return {
    detail: `Item /data/${index} overlaps item /data/${otherIndex}: ${slot} in a shared month${month}; nothing was written.`,
    violations: [{ index, message: `overlaps /data/${otherIndex}: ${slot} in a shared month${month}` }],
  };
}

/**
 * A chain of managers that comes back to its start. `emails[i]` is managed by `emails[i + 1]`,
 * the last by the first; `month` is one month where it holds (`null`: every month); `index` is
 * the request item that closes it, when one does.
 */
export function managerCycle(emails: readonly string[], month: MonthIndex | null, index: number | undefined): RulesBroken {
  const when = month === null ? 'in every month' : `in ${formatMonth(month)}`;
  const chain = [...emails, emails[0]!].join(' -> ');
  const message =
    emails.length === 1
      ? `${emails[0]} would be their own manager ${when}`
      : `managers would form a cycle ${when}: ${chain} (each managed by the next)`;
  const violation: RuleViolation = index === undefined ? { message } : { index, field: 'manager', message };
  return { detail: `A user cannot be their own manager, directly or through a chain; nothing was written.`, violations: [violation] };
}
