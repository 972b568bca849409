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

/**
 * What an empty standard field reads as (docs/rules.md#users): a field sent as `null`, and one a
 * new user was created without. The user object of the reporting records types every field as
 * text and each currency as an ISO 4217 code, so an empty text is `""` and an empty currency is
 * `XXX`, ISO 4217's code for "no currency". `id` and `email` are never empty.
 */
const EMPTY_USER_FIELDS: Readonly<Record<Exclude<StandardField, 'id' | 'email'>, string>> = {
  name: '',
  role: '',
  currency: 'XXX',
  calculation_currency: 'XXX',
  country: '',
  code: '',
};

/** The prefix of the ids the service gives users (docs/rules.md#users), as the seed's ids have it. */
const SERVICE_ID_PREFIX = 'usr_';

/** The id the service gives a new user: `usr_` and the 12 lowercase hex digits of 6 random bytes, as the seed's ids look. */
export function serviceUserId(randomBytes: Uint8Array): string {
  if (randomBytes.length !== 6) throw new RangeError(`a user id takes 6 random bytes (got ${randomBytes.length})`);
  return SERVICE_ID_PREFIX + Array.from(randomBytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

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
 * The indexes of the items that create a user without sending an id (an `id` sent as `null`
 * is none): the first item of each e-mail that names no stored user. The service gives each
 * one an id ({@link serviceUserId}) before the request is planned.
 */
export function itemsWithoutId(items: readonly UserUpsert[], byEmailKey: ReadonlyMap<string, StoredUserState>): number[] {
  const seen = new Set<string>();
  const wanted: number[] = [];
  for (const [index, item] of items.entries()) {
    const key = asciiLowerCase(item.email);
    if (!seen.has(key) && !byEmailKey.has(key) && typeof item.fields.id !== 'string') wanted.push(index);
    seen.add(key);
  }
  return wanted;
}

/** Each item with the id the service gives it (`given`: by index), as if the client had sent it. */
export function withGivenIds(items: readonly UserUpsert[], given: ReadonlyMap<number, string>): UserUpsert[] {
  return items.map((item, index) => {
    const id = given.get(index);
    return id === undefined ? item : { ...item, fields: { ...item.fields, id } };
  });
}

/**
 * Each item merged into the stored user its e-mail names (`byEmailKey`, keyed by the e-mail in
 * ASCII lower case), or a new user; `byId`: the stored users with an id an item sends. A
 * standard field sent as `null` is emptied ({@link EMPTY_USER_FIELDS}), and so is one a new
 * user is created without; an `id` sent as `null` is as if left out. Every broken rule is a
 * violation: a new user without an id (the service gives one first: {@link itemsWithoutId}), an
 * id that is not the stored user's or that another user holds, two items of one user or of one
 * id.
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
    const user = mergedUser(item, before?.user);
    if (user.id === undefined && earlier === undefined) violations.push({ index, field: 'id', message: `no id for the new user ${item.email}` });
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

/**
 * The stored user (a new one: every field empty) with the fields sent, `null` emptying one
 * (the e-mail as sent: its case may change; an `id` sent as `null` changes nothing).
 */
function mergedUser(item: UserUpsert, stored: ReportingUser | undefined): Partial<ReportingUser> {
  const merged: Partial<Record<StandardField, string>> = { ...EMPTY_USER_FIELDS, ...stored, email: item.email };
  for (const [field, value] of Object.entries(item.fields)) {
    if (value !== null) merged[field as StandardField] = value;
    else if (field !== 'id') merged[field as Exclude<StandardField, 'id' | 'email'>] = EMPTY_USER_FIELDS[field as Exclude<StandardField, 'id' | 'email'>];
  }
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
