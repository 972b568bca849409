import type { ListedField } from './fieldListing.js';
import { STATEMENT_STATUSES } from './statements.js';

/**
 * The v2 rendering of the field model of discovery (fieldListing.ts), so that v1's field
 * listings and v2's never disagree (docs/rules.md#v2-reads): one field per v2 key, an amount and
 * its `_currency` companion as one field of format `currency`, keys prefixed by their origin,
 * and the time of the record's last change at the end.
 */
export interface V2Field {
  api_key: string;
  name: string;
  type: 'string' | 'number' | 'object' | 'array';
  format: 'date' | 'date-time' | 'currency' | 'user_reference' | 'user_id' | 'enum' | 'percentage' | 'float' | null;
  origin: Origin;
  created_at: null;
  currencies: null;
  enum_values: string[] | null;
  properties: Record<string, V2FieldProperty> | null;
}

/**
 * A property of an object field (an amount, a user reference): its JSON type, and whether the
 * object always holds it (it may still be `null` where the field's value can be: see
 * docs/rules.md#v2-reads).
 */
interface V2FieldProperty {
  type: 'string' | 'number';
  required: boolean;
}

type Origin = 'standard' | 'custom' | 'datatable';

/** The fields v1 lists that are standard fields of a statement record (the others are the tenant's metrics and dimensions). */
const STANDARD_STATEMENT_FIELDS: ReadonlySet<string> = new Set(['id', 'date', 'plan', 'user', 'payment', 'target', 'target_achievement', 'on_target_earning', 'achievement']);

const AMOUNT: Readonly<Record<string, V2FieldProperty>> = { value: { type: 'number', required: true }, currency: { type: 'string', required: true } };
const USER_REFERENCE: Readonly<Record<string, V2FieldProperty>> = { id: { type: 'string', required: true }, email: { type: 'string', required: true } };

/**
 * The fields of a statement as v2 writes it, from v1's listing (`reportingFields`): besides
 * v1's, after its standard fields, the statement's status and total commission, which each
 * line shows (docs/rules.md#statements).
 */
export function v2StatementFields(listed: readonly ListedField[]): V2Field[] {
  const fields = v2Fields(listed, (name) => (STANDARD_STATEMENT_FIELDS.has(name) ? 'standard' : 'custom'));
  const afterStandard = fields.findLastIndex((one) => one.origin === 'standard' && one.name !== 'last_modified_at') + 1;
  const statementFields = [
    { ...field('standard', 'status', 'string', 'enum'), enum_values: [...STATEMENT_STATUSES] },
    v2Field({ name: 'total_commission', type: 'amount', nullable: true }, 'standard'),
  ];
  return [...fields.slice(0, afterStandard), ...statementFields, ...fields.slice(afterStandard)];
}

/**
 * The fields of a data table's record as v2 writes it, from v1's listing (`tableFields`): the
 * record's id is `standard.id` (as in a statement: no table declares a field `id`), the table's
 * own fields `datatable.<key>`.
 */
export function v2TableFields(listed: readonly ListedField[]): V2Field[] {
  return v2Fields(listed, (name) => (name === 'id' ? 'standard' : 'datatable'));
}

function v2Fields(listed: readonly ListedField[], originOf: (name: string) => Origin): V2Field[] {
  const amounts = new Set(listed.filter((field) => field.type === 'amount').map((field) => `${field.name}_currency`));
  const fields = listed.filter((field) => !amounts.has(field.name)).map((field) => v2Field(field, originOf(field.name)));
  return [...fields, field('standard', 'last_modified_at', 'string', 'date-time')];
}

function v2Field(listed: ListedField, origin: Origin): V2Field {
  const { name } = listed;
  switch (listed.type) {
    case 'string':
    case 'currency':
      return field(origin, name, 'string', null);
    case 'number':
      return field(origin, name, 'number', name === 'target_achievement' && origin === 'standard' ? 'percentage' : 'float');
    case 'amount':
      return { ...field(origin, name, 'object', 'currency'), properties: copied(AMOUNT) };
    case 'date':
      return field(origin, name, 'string', 'date');
    case 'datetime':
      return field(origin, name, 'string', 'date-time');
    case 'user':
      return { ...field(origin, name, 'object', 'user_reference'), properties: copied(USER_REFERENCE) };
    case 'user_id':
      return field(origin, name, 'string', 'user_id');
    case 'groups':
      return { ...field(origin, name, 'array', 'enum'), enum_values: [...(listed.groups ?? [])] };
  }
}

/** A fresh copy of a field's properties: a listing is the caller's to change. */
function copied(properties: Readonly<Record<string, V2FieldProperty>>): Record<string, V2FieldProperty> {
  return Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, { ...property }]));
}

function field(origin: Origin, name: string, type: V2Field['type'], format: V2Field['format']): V2Field {
  return { api_key: `${origin}.${name}`, name, type, format, origin, created_at: null, currencies: null, enum_values: null, properties: null };
}
