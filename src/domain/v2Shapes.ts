import { createHash } from 'node:crypto';
import type { ListedField } from './fieldListing.js';

/**
 * The v2 reads' shapes (docs/rules.md#v2-reads), rendered from the same field model as v1's
 * discovery (fieldListing.ts): a v2 field is a v1 field (with its `_currency` companion folded
 * into it) under a prefixed key, and a v2 record is a v1 record rendered field by field.
 */

/** Where a data structure's records come from: the tenant's statement lines, or one data table. */
export type StructureOrigin = { kind: 'statements' } | { kind: 'table'; key: string };

/**
 * The id of a data structure: a UUID (version 8, RFC 9562) of the SHA-256 of what the structure
 * is, so that the same structure has the same id on every server, after every restart, on
 * either engine, and a table keeps its id as long as it keeps its key.
 */
export function structureId(origin: StructureOrigin): string {
  const name = origin.kind === 'statements' ? 'statement_reporting' : `record_reporting:${origin.key}`;
  const bytes = createHash('sha256').update(`compdata:data-structure:${name}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The v1 standard fields of a statement line whose v2 key is not `standard.<same name>`. */
const RENAMED: Readonly<Record<string, string>> = { payment: 'commission_impact' };

/** The v2 key of a v1 field of a record of `origin` (`custom` only matters on statements: metrics and dimensions). */
function v2Key(origin: StructureOrigin['kind'], v1Name: string, custom: boolean): string {
  if (v1Name === 'id' || !custom) return `standard.${RENAMED[v1Name] ?? v1Name}`;
  return origin === 'statements' ? `custom.${v1Name}` : `datatable.${v1Name}`;
}

type V2Type = 'string' | 'number' | 'object' | 'array';
type V2Format = 'user_reference' | 'currency' | 'date' | 'datetime' | 'enum' | 'float' | null;

/** A field as `GET /v2/data-structures/{table_id}/fields` lists it. */
interface V2Field {
  api_key: string;
  name: string;
  type: V2Type;
  format: V2Format;
  origin: 'standard' | 'custom' | 'datatable';
  created_at: null;
  currencies: null;
  enum_values: string[] | null;
  properties: string[] | null;
}

/** How a v1 field is carried in v2: its type, its format, the properties of an object. */
const KINDS: Readonly<Record<Exclude<ListedField['type'], 'currency'>, Pick<V2Field, 'type' | 'format' | 'properties'>>> = {
  string: { type: 'string', format: null, properties: null },
  number: { type: 'number', format: 'float', properties: null },
  amount: { type: 'object', format: 'currency', properties: ['value', 'currency'] },
  date: { type: 'string', format: 'date', properties: null },
  datetime: { type: 'string', format: 'datetime', properties: null },
  user: { type: 'object', format: 'user_reference', properties: ['id', 'email'] },
  user_id: { type: 'object', format: 'user_reference', properties: ['id', 'email'] },
  groups: { type: 'array', format: 'enum', properties: null },
};

/** One field of a v2 record: its v2 key, and the v1 field (and `_currency` companion) it is read from. */
export interface V2FieldPlan {
  field: V2Field;
  v1Name: string;
  kind: Exclude<ListedField['type'], 'currency'>;
}

/**
 * The fields of a v2 record of `origin`, from the v1 fields of its records (`standard`: how many
 * of the v1 fields, from the first, are the product's own). A `_currency` companion is not a
 * field of its own in v2: it is the currency of its amount.
 */
export function v2Fields(origin: StructureOrigin['kind'], listed: readonly ListedField[], standard: number): V2FieldPlan[] {
  const plans: V2FieldPlan[] = [];
  listed.forEach((v1, index) => {
    if (v1.type === 'currency') return;
    const custom = index >= standard;
    const api_key = v2Key(origin, v1.name, custom);
    const fieldOrigin = !custom || v1.name === 'id' ? 'standard' : origin === 'statements' ? 'custom' : 'datatable';
    const { type, format, properties } = KINDS[v1.type];
    const enum_values = v1.groups ? [...v1.groups] : null;
    const field: V2Field = { api_key, name: v1.name, type, format, origin: fieldOrigin, created_at: null, currencies: null, enum_values, properties };
    plans.push({ field, v1Name: v1.name, kind: v1.type });
  });
  return plans;
}

/**
 * A field v2 adds to every record: when it last changed (ISO 8601 UTC, to the millisecond), the
 * time `last_modified_after` and `last_modified_before` compare.
 */
const LAST_MODIFIED: V2Field = {
  api_key: 'standard.last_modified_at',
  name: 'last_modified_at',
  type: 'string',
  format: 'datetime',
  origin: 'standard',
  created_at: null,
  currencies: null,
  enum_values: null,
  properties: null,
};

/** The fields of a structure as `GET /v2/data-structures/{table_id}/fields` lists them: the record's, then its modification time. */
export const v2FieldListing = (plans: readonly V2FieldPlan[]): V2Field[] => [...plans.map((plan) => plan.field), LAST_MODIFIED];

/** A user's e-mail address by id, for the user fields of data tables (which hold an id only). */
export type EmailOf = (userId: string) => string | null;

/**
 * A v1 record rendered as v2 renders it, field by field (`plans` from {@link v2Fields}): an
 * amount is `{value, currency}` (`null` when it has no value), a user a reference `{id, email}`,
 * every other value as it is; then the time it last changed (`modifiedAt`, milliseconds since 1970).
 */
export function v2Record(plans: readonly V2FieldPlan[], v1: Readonly<Record<string, unknown>>, modifiedAt: number, emailOf: EmailOf): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const { field, v1Name, kind } of plans) {
    const value = v1[v1Name] ?? null;
    record[field.api_key] = value === null ? null : v2Value(kind, value, v1[`${v1Name}_currency`] ?? null, emailOf);
  }
  record[LAST_MODIFIED.api_key] = new Date(modifiedAt).toISOString();
  return record;
}

/**
 * The modification times a `last_modified_after` and a `last_modified_before` keep, in
 * milliseconds since 1970, both excluded (digits past the millisecond are cut); none given:
 * every time. The texts are RFC 3339 date-times (the contract checks them).
 */
export function modifiedBetween(lastModifiedAfter: string | undefined, lastModifiedBefore: string | undefined): { after: number; before: number } {
  return {
    after: lastModifiedAfter === undefined ? Number.MIN_SAFE_INTEGER : timeOf(lastModifiedAfter),
    before: lastModifiedBefore === undefined ? Number.MAX_SAFE_INTEGER : timeOf(lastModifiedBefore),
  };
}

/** An RFC 3339 date-time in milliseconds since 1970; a leap second (`23:59:60`) is the second after `23:59:59`. */
function timeOf(text: string): number {
  const time = Date.parse(text);
  return Number.isNaN(time) ? Date.parse(text.replace(/:60(?=[.,zZ+-])/, ':59')) + 1000 : time;
}

function v2Value(kind: V2FieldPlan['kind'], value: unknown, currency: unknown, emailOf: EmailOf): unknown {
  switch (kind) {
    case 'amount':
      return { value, currency };
    case 'user': {
      const { id, email } = value as { id: string; email: string };
      return { id, email };
    }
    case 'user_id':
      return { id: value, email: emailOf(value as string) };
    default:
      return value;
  }
}
