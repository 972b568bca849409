import { FieldValueError, renderTableRecord, type TableField, type TableRecordInput } from './tableJson.js';

/**
 * The lines pushed into a data table, checked before an import writes any of them
 * (docs/rules.md#table-imports): a table is imported whole or not at all, and a refusal names
 * every line that does not fit.
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

/**
 * A table's lines checked: the records to upsert, each id once with the last line that gave it
 * (at the place of its first), or every line that does not fit, in line order (1 for the first).
 */
export function checkLines(fields: readonly TableField[], lines: readonly unknown[], checks: LineChecks): { records: TableRecordInput[] } | { failures: LineFailure[] } {
  const userKeys = fields.filter((field) => field.type === 'user').map((field) => field.key);
  const failures: LineFailure[] = [];
  const byId = new Map<string, TableRecordInput>();
  for (const [index, row] of lines.entries()) {
    const problem = lineProblem(fields, userKeys, row, checks);
    if (problem !== undefined) failures.push({ line_number: index + 1, row, details: problem });
    else byId.set((row as TableRecordInput).id, row as TableRecordInput);
  }
  return failures.length > 0 ? { failures } : { records: [...byId.values()] };
}

function lineProblem(fields: readonly TableField[], userKeys: readonly string[], row: unknown, checks: LineChecks): string | undefined {
  if (!isObject(row)) return 'a record must be an object';
  try {
    renderTableRecord(fields, row as TableRecordInput);
  } catch (error) {
    if (error instanceof FieldValueError) return error.message;
    throw error;
  }
  for (const key of userKeys) {
    const id = row[key];
    if (typeof id === 'string' && !checks.isUser(id)) return `${key}: no user with id ${id}`;
  }
  const idProblem = checks.idProblem(row.id as string);
  return idProblem === undefined ? undefined : `id: ${idProblem}`;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
