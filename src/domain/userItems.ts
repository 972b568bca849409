import { itemRulesBroken, type RuleViolation, type RulesBroken } from './bulkItems.js';
import { asciiLowerCase } from './emailKey.js';
import type { ReportingUser } from './reportingJson.js';

/**
 * The items of `PUT /v1/users/bulk` (docs/rules.md#users) and how a request is planned against
 * the stored users: pure values and decisions, the store reads and writes around them.
 */

/** The standard fields of a user, in the order of the user object. */
const STANDARD_USER_FIELDS = ['id', 'email', 'name', 'role', 'currency', 'calculation_currency', 'country', 'code'] as const;

type StandardField = (typeof STANDARD_USER_FIELDS)[number];

/** A custom attribute's value; `null` in a request clears it. */
export type AttributeValue = string | number | boolean;

/** A user item: the fields sent (`null`: cleared; absent: unchanged). */
export interface UserUpsert {
  /** The e-mail address as sent: the user it names, without regard to ASCII case. */
  readonly email: string;
  readonly fields: Readonly<Partial<Record<Exclude<StandardField, 'email'>, string | null>>>;
  readonly attributes: Readonly<Record<string, AttributeValue | null>>;
}

/** A stored user: its key in the store, the user object and the custom attributes. */
export interface StoredUserState {
  readonly pk: number;
  readonly user: ReportingUser;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
}

/** A user as a request leaves it; `before`: as it was stored (absent: a new user). */
export interface PlannedUser {
  readonly user: ReportingUser;
  readonly attributes: Record<string, AttributeValue>;
  readonly before?: StoredUserState;
}

/** A user item split into the standard fields and the custom attributes (named by every other key). */
export function userUpsertOf(item: Readonly<Record<string, unknown>>): UserUpsert {
  const fields: Record<string, string | null> = {};
  const attributes: Record<string, AttributeValue | null> = {};
  for (const [key, value] of Object.entries(item)) {
    if (key === 'email') continue;
    if ((STANDARD_USER_FIELDS as readonly string[]).includes(key)) fields[key] = value as string | null;
    else attributes[key] = value as AttributeValue | null;
  }
  return { email: item.email as string, fields, attributes };
}

/**
 * Each item merged into the stored user its e-mail names (`byEmailKey`, keyed by the e-mail in
 * ASCII lower case), or a new user; `byId`: the stored users with an id an item sends. Every
 * broken rule is a violation: a standard field sent as `null`, a new user without a standard
 * field, an id that is not the stored user's or that another user holds, two items of one user
 * or of one id.
 */
export function planUsers(
  items: readonly UserUpsert[],
  byEmailKey: ReadonlyMap<string, StoredUserState>,
  byId: ReadonlyMap<string, StoredUserState>,
): PlannedUser[] | RulesBroken {
  const violations: RuleViolation[] = [];
  const firstOfEmail = new Map<string, number>();
  const firstOfId = new Map<string, number>();
  const planned: PlannedUser[] = [];
  for (const [index, item] of items.entries()) {
    const key = asciiLowerCase(item.email);
    const before = byEmailKey.get(key);
    const earlier = firstOfEmail.get(key);
    if (earlier !== undefined) violations.push({ index, field: 'email', message: `names the same user as /data/${earlier}` });
    else firstOfEmail.set(key, index);
    for (const [field, value] of Object.entries(item.fields)) {
      if (value === null) violations.push({ index, field, message: `${field} cannot be null: every user has one` });
    }
    const user = mergedUser(item, before?.user);
    for (const field of STANDARD_USER_FIELDS) {
      if (user[field] === undefined) violations.push({ index, field, message: `${field} is required for a new user (no user has e-mail ${item.email})` });
    }
    const id = item.fields.id;
    if (typeof id === 'string') {
      const holder = byId.get(id);
      if (before && before.user.id !== id) violations.push({ index, field: 'id', message: `the user with e-mail ${before.user.email} has id ${before.user.id}; a user's id cannot change` });
      else if (!before && holder) violations.push({ index, field: 'id', message: `id ${id} is the id of user ${holder.user.email}` });
      const earlierId = firstOfId.get(id);
      if (earlierId !== undefined && !before) violations.push({ index, field: 'id', message: `the same id as /data/${earlierId}` });
      else firstOfId.set(id, index);
    }
    planned.push({ user: user as ReportingUser, attributes: mergedAttributes(before?.attributes ?? {}, item.attributes), before });
  }
  return violations.length > 0 ? itemRulesBroken(violations) : planned;
}

/** The stored user with the fields sent (the e-mail as sent: its case may change). */
function mergedUser(item: UserUpsert, stored: ReportingUser | undefined): Partial<ReportingUser> {
  const merged: Partial<Record<StandardField, string>> = { ...stored, email: item.email };
  for (const [field, value] of Object.entries(item.fields)) if (value !== null) merged[field as StandardField] = value;
  return merged;
}

/** The stored attributes with those sent, `null` removing one; by key, so that the stored text is the same however they were sent. */
function mergedAttributes(stored: Readonly<Record<string, AttributeValue>>, sent: Readonly<Record<string, AttributeValue | null>>): Record<string, AttributeValue> {
  const merged: Record<string, AttributeValue> = { ...stored };
  for (const [key, value] of Object.entries(sent)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return sortedAttributes(merged);
}

/** Attributes in key order, as they are stored: the same text however they were sent. */
export function sortedAttributes(attributes: Readonly<Record<string, AttributeValue>>): Record<string, AttributeValue> {
  return Object.fromEntries(Object.entries(attributes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A user as the API shows it: the standard fields, then the custom attributes by key. */
export function userObject(user: ReportingUser, attributes: Readonly<Record<string, AttributeValue>>): Record<string, AttributeValue> {
  const standard: Record<string, string> = Object.fromEntries(STANDARD_USER_FIELDS.map((field) => [field, user[field]]));
  return { ...standard, ...attributes };
}
