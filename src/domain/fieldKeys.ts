/**
 * Rules for the API keys of custom metrics, dimensions and data-table fields
 * (docs/rules.md#metrics-and-dimensions): they become JSON property names beside the standard
 * fields, so they must never collide with one.
 */
export const STANDARD_REPORTING_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'date',
  'plan',
  'user',
  'payment',
  'payment_currency',
  'target',
  'target_currency',
  'target_achievement',
  'on_target_earning',
  'on_target_earning_currency',
  'achievement',
  'achievement_currency',
]);

const KEY_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Why `key` cannot be a custom metric or dimension key beside `taken` (the tenant's other
 * metric and dimension keys), or `undefined` when it can. A key may not end in `_currency`
 * (that suffix names a metric's companion), may not be a standard field, and may not collide
 * with another key or another metric's companion.
 */
export function customKeyProblem(key: string, taken: ReadonlySet<string>): string | undefined {
  if (!KEY_PATTERN.test(key)) return 'must match ^[a-z][a-z0-9_]{0,63}$';
  if (key.endsWith('_currency')) return 'must not end in _currency';
  if (STANDARD_REPORTING_FIELDS.has(key)) return 'is a standard field name';
  if (taken.has(key)) return 'is already a metric or dimension key';
  return undefined;
}

/** Why `key` cannot be a data-table field key beside `taken`, or `undefined`. */
export function tableFieldKeyProblem(key: string, taken: ReadonlySet<string>): string | undefined {
  if (!KEY_PATTERN.test(key)) return 'must match ^[a-z][a-z0-9_]{0,63}$';
  if (key === 'id') return 'is the record id';
  if (key.endsWith('_currency')) return 'must not end in _currency';
  if (taken.has(key)) return 'is already a field of the table';
  return undefined;
}
