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

/** The ids named by the lines' fields of type `user` (to look up before {@link LineCheck}). */
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
 * A check of a table's lines, given a part at a time in line order (so that a caller can let
 * other work run between parts): the records to upsert, each id once with the last line that
 * gave it (at the place of its first), or every line that does not fit, in line order.
 */
export class LineCheck {
  private readonly failures: LineFailure[] = [];
  private readonly byId = new Map<string, TableRecordInput>();
  private readonly userKeys: readonly string[];
  private checked = 0;

  constructor(
    private readonly fields: readonly TableField[],
    private readonly checks: LineChecks,
  ) {
    this.userKeys = fields.filter((field) => field.type === 'user').map((field) => field.key);
  }

  /** Checks the next lines (the first of them is line `checked + 1`). */
  add(lines: readonly unknown[]): this {
    for (const row of lines) {
      this.checked += 1;
      const problem = lineProblem(this.fields, this.userKeys, row, this.checks);
      if (problem !== undefined) this.failures.push({ line_number: this.checked, row, details: problem });
      else this.byId.set((row as TableRecordInput).id, row as TableRecordInput);
    }
    return this;
  }

  result(): { records: TableRecordInput[] } | { failures: LineFailure[] } {
    return this.failures.length > 0 ? { failures: this.failures } : { records: [...this.byId.values()] };
  }
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
