import { FieldValueError, renderTableRecord, type TableField, type TableRecordInput } from './tableJson.js';

/**
 * The lines pushed into a data table, checked before an import writes any of them
 * (docs/rules.md#table-imports): the lines that fit are imported, those that do not are each
 * named, and a property that is not a field of the table is ignored, counted by key.
 */

/** A line that does not fit its table: its number (1 for the first line), the row as sent, and why. */
export interface LineFailure {
  readonly line_number: number;
  readonly row: unknown;
  readonly details: string;
}

/** How many failed lines an import lists (the description counts them all). */
export const LISTED_FAILURES = 100;

/** What a check of lines needs besides the fields: which user ids exist, and what text the engine cannot store. */
export interface LineChecks {
  isUser(id: string): boolean;
  /** Why the engine cannot store this id, or `undefined`. */
  idProblem(id: string): string | undefined;
}

/** The ids named by the lines' fields of type `user` (to look up before {@link checkLines}). */
export function userIdsNamed(fields: readonly TableField[], lines: readonly unknown[]): string[] {
  const keys = fields.filter((field) => field.type === 'user').map((field) => field.key);
  const ids = new Set<string>();
  for (const line of lines) {
    if (!isObject(line)) continue;
    for (const key of keys) if (typeof line[key] === 'string') ids.add(line[key]);
  }
  return [...ids];
}

/** A property of the lines imported that is not a field of the table: ignored, in `records` lines. */
export interface IgnoredField {
  readonly field: string;
  readonly records: number;
}

/** A table's lines checked (see {@link checkLines}). */
export interface CheckedLines {
  /** The records to upsert, each id once with the last line that gave it (at the place of its first), without their ignored properties. */
  readonly records: TableRecordInput[];
  /** Every line that does not fit, in line order (1 for the first). */
  readonly failures: LineFailure[];
  /** The properties ignored in the lines that fit, by key in the order first seen, with how many of those lines had each. */
  readonly ignored: IgnoredField[];
}

/**
 * A table's lines checked: the lines that fit become records (a property that is neither `id`,
 * a field, nor an amount's `_currency` is left out of it and counted), the others are failures.
 */
export function checkLines(fields: readonly TableField[], lines: readonly unknown[], checks: LineChecks): CheckedLines {
  const userKeys = fields.filter((field) => field.type === 'user').map((field) => field.key);
  const known = knownKeys(fields);
  const failures: LineFailure[] = [];
  const ignored = new Map<string, number>();
  const byId = new Map<string, TableRecordInput>();
  for (const [index, row] of lines.entries()) {
    if (!isObject(row)) {
      failures.push({ line_number: index + 1, row, details: 'a record must be an object' });
      continue;
    }
    const unknown = Object.keys(row).filter((key) => !known.has(key));
    const record = (unknown.length === 0 ? row : Object.fromEntries(Object.entries(row).filter(([key]) => known.has(key)))) as TableRecordInput;
    const problem = lineProblem(fields, userKeys, record, checks);
    if (problem !== undefined) {
      failures.push({ line_number: index + 1, row, details: problem });
      continue;
    }
    for (const key of unknown) ignored.set(key, (ignored.get(key) ?? 0) + 1);
    byId.set(record.id, record);
  }
  return { records: [...byId.values()], failures, ignored: [...ignored].map(([field, records]) => ({ field, records })) };
}

/** The keys a record of the table may have: `id`, each field's, and each amount's `_currency`. */
function knownKeys(fields: readonly TableField[]): Set<string> {
  const known = new Set(['id']);
  for (const field of fields) {
    known.add(field.key);
    if (field.type === 'amount') known.add(`${field.key}_currency`);
  }
  return known;
}

function lineProblem(fields: readonly TableField[], userKeys: readonly string[], row: TableRecordInput, checks: LineChecks): string | undefined {
  try {
    renderTableRecord(fields, row);
  } catch (error) {
    if (error instanceof FieldValueError) return error.message;
    throw error;
  }
  for (const key of userKeys) {
    const id = row[key];
    if (typeof id === 'string' && !checks.isUser(id)) return `${key}: no user with id ${id}`;
  }
  const idProblem = checks.idProblem(row.id);
  return idProblem === undefined ? undefined : `id: ${idProblem}`;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
