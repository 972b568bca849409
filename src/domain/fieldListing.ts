import { createHash } from 'node:crypto';
import type { FieldType, TableField } from './tableJson.js';

/**
 * The typed fields that the discovery extensions list (`GET /v1/reporting/fields`,
 * `GET /v1/tables/{data_table_key}/fields`): the fields of a record as the renderers write them
 * (reportingJson.ts, tableJson.ts), each with its type and whether it may be `null`, and a hash
 * of the list that changes exactly when the list does.
 *
 * Types: `string`, `number` (a plain number), `amount` (a number in the currency of its
 * `<name>_currency` companion), `currency` (a three-letter code), `date` (`YYYY-MM-DD`),
 * `datetime` (ISO 8601 UTC), `user` (the user object of a reporting record), `user_id` (a
 * user's id: a table field declared `user`), `groups` (the group names of a dimension).
 */
type FieldKind = 'string' | 'number' | 'amount' | 'currency' | 'date' | 'datetime' | 'user' | 'user_id' | 'groups';

export interface ListedField {
  name: string;
  type: FieldKind;
  nullable: boolean;
  /** A dimension's group names (binary order), on `groups` fields only. */
  groups?: string[];
}

/** A dimension of the tenant and the names of its groups. */
export interface DimensionGroups {
  key: string;
  groups: string[];
}

/** The standard fields of a reporting record, in the order renderReportingBody writes them. */
const STANDARD_FIELDS: readonly ListedField[] = [
  { name: 'id', type: 'string', nullable: false },
  { name: 'date', type: 'date', nullable: false },
  { name: 'plan', type: 'string', nullable: false },
  { name: 'user', type: 'user', nullable: false },
  { name: 'payment', type: 'amount', nullable: false },
  { name: 'payment_currency', type: 'currency', nullable: false },
  { name: 'target', type: 'amount', nullable: true },
  { name: 'target_currency', type: 'currency', nullable: false },
  { name: 'target_achievement', type: 'number', nullable: true },
  { name: 'on_target_earning', type: 'amount', nullable: true },
  { name: 'on_target_earning_currency', type: 'currency', nullable: false },
  { name: 'achievement', type: 'amount', nullable: true },
  { name: 'achievement_currency', type: 'currency', nullable: false },
];

/**
 * The fields of the tenant's reporting records: the standard fields, then each metric (`null`
 * when a line has no value) with its `_currency` companion (never `null`: the payment currency
 * then), then each dimension (an array, empty when the user has no group) with its groups.
 */
export function reportingFields(metricKeys: readonly string[], dimensions: readonly DimensionGroups[]): ListedField[] {
  return [
    ...STANDARD_FIELDS,
    ...metricKeys.flatMap((key): ListedField[] => [
      { name: key, type: 'amount', nullable: true },
      { name: `${key}_currency`, type: 'currency', nullable: false },
    ]),
    ...dimensions.map(({ key, groups }): ListedField => ({ name: key, type: 'groups', nullable: false, groups: [...groups] })),
  ];
}

const TABLE_KINDS: Readonly<Record<FieldType, FieldKind>> = {
  string: 'string',
  number: 'number',
  date: 'date',
  datetime: 'datetime',
  amount: 'amount',
  user: 'user_id',
};

/**
 * The fields of a data table's records: `id`, then each field in the table's order (any may
 * be `null`: a record may leave it out), an `amount` followed by its `_currency` companion.
 */
export function tableFields(fields: readonly TableField[]): ListedField[] {
  return [
    { name: 'id', type: 'string', nullable: false },
    ...fields.flatMap(({ key, type }): ListedField[] => [
      { name: key, type: TABLE_KINDS[type], nullable: true },
      ...(type === 'amount' ? [{ name: `${key}_currency`, type: 'currency', nullable: true } as const] : []),
    ]),
  ];
}

/**
 * A hash of a listing's structure: the same text for the same structure, another as soon as a
 * field, a type, a table or a dimension's group is added or changed (128 bits of SHA-256, hex).
 */
export function schemaHash(structure: unknown): string {
  return createHash('sha256').update(JSON.stringify(structure)).digest('hex').slice(0, 32);
}
