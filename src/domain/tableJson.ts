/**
 * Data tables (docs/rules.md#data-tables): typed fields, and records rendered flat as `id` plus
 * one property per field in the table's order (an `amount` field followed by its
 * `<key>_currency` companion).
 */
export const FIELD_TYPES = ['string', 'number', 'date', 'datetime', 'amount', 'user'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface TableField {
  key: string;
  type: FieldType;
}

export type TableRecordInput = { id: string } & Record<string, unknown>;

const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const DATETIME_UTC = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,9})?Z$/;
const CURRENCY = /^[A-Z]{3}$/;

/** Why `value` is not a valid value of a field of `type`, or `undefined`. `null` is always valid. */
function fieldValueProblem(type: FieldType, value: unknown): string | undefined {
  if (value === null) return undefined;
  switch (type) {
    case 'number':
    case 'amount':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a number';
    case 'date':
      return typeof value === 'string' && DATE.test(value) ? undefined : 'must be a date YYYY-MM-DD';
    case 'datetime':
      return typeof value === 'string' && DATETIME_UTC.test(value)
        ? undefined
        : 'must be an ISO 8601 UTC date-time';
    case 'string':
    case 'user':
      return typeof value === 'string' ? undefined : 'must be a string';
  }
}

/** A value of a record that does not fit its field, or a property that is not a field. */
export class FieldValueError extends TypeError {
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${field}: ${problem}`);
  }
}

/**
 * Renders a record of a table. Throws a {@link FieldValueError} naming the field when a value
 * does not fit its type or a property is not a field of the table; a missing field is `null`.
 */
export function renderTableRecord(fields: readonly TableField[], record: TableRecordInput): string {
  if (typeof record.id !== 'string' || record.id.length === 0) throw new FieldValueError('id', 'must be a non-empty string');
  const known = new Set(['id']);
  let json = `{"id":${JSON.stringify(record.id)}`;
  for (const field of fields) {
    const value = record[field.key] ?? null;
    const problem = fieldValueProblem(field.type, value);
    if (problem) throw new FieldValueError(field.key, problem);
    json += `,${JSON.stringify(field.key)}:${JSON.stringify(value)}`;
    known.add(field.key);
    if (field.type === 'amount') {
      const currencyKey = `${field.key}_currency`;
      const currency = record[currencyKey] ?? null;
      if (currency !== null && !(typeof currency === 'string' && CURRENCY.test(currency))) {
        throw new FieldValueError(currencyKey, 'must be a currency code');
      }
      json += `,${JSON.stringify(currencyKey)}:${JSON.stringify(currency)}`;
      known.add(currencyKey);
    }
  }
  for (const key of Object.keys(record)) {
    if (!known.has(key)) throw new FieldValueError(key, 'is not a field of the table');
  }
  return `${json}}`;
}
