import { DatasetError } from '../../domain/datasetError.js';
import { customKeyProblem, tableFieldKeyProblem } from '../../domain/fieldKeys.js';
import { monthOfDate, type MonthIndex } from '../../domain/months.js';
import { renderReportingBody, type StatementLine } from '../../domain/reportingJson.js';
import { FIELD_TYPES, FieldValueError, renderTableRecord, type TableField, type TableRecordInput } from '../../domain/tableJson.js';
import { renderStatementV2, renderTableRecordV2, type UserReference } from '../../domain/v2Json.js';
import { itemPath, type Origin } from '../vocabulary/tenantWriter.js';

/**
 * The checks and renderings every engine's tenant writer makes before it writes, worded once:
 * each throws a `DatasetError` at the item's JSON path.
 */

/** The metric and dimension keys to add after the stored ones (a key already defined is skipped). */
export function newCustomKeys(
  stored: { metrics: readonly string[]; dimensions: readonly string[] },
  given: { metrics: readonly string[]; dimensions: readonly string[] },
): { metrics: string[]; dimensions: string[] } {
  const taken = new Set([...stored.metrics, ...stored.dimensions]);
  const add = (keys: readonly string[], existing: ReadonlySet<string>, section: string) =>
    keys.filter((key, index) => {
      if (existing.has(key)) return false;
      const problem = customKeyProblem(key, taken);
      if (problem) throw new DatasetError(`$.${section}[${index}].key`, `${JSON.stringify(key)} ${problem}`);
      taken.add(key);
      return true;
    });
  const metrics = add(given.metrics, new Set(stored.metrics), 'metrics');
  return { metrics, dimensions: add(given.dimensions, new Set(stored.dimensions), 'dimensions') };
}

/** The fields of a table as stored: JSON text of `[{key, type}, ...]`. */
export const fieldsJsonOf = (fields: readonly TableField[]): string => JSON.stringify(fields.map((field) => ({ key: field.key, type: field.type })));

/** The fields of a table given again must be the stored ones. */
export function assertSameFields(path: string, key: string, storedJson: string, givenJson: string): void {
  if (storedJson !== givenJson) {
    throw new DatasetError(`${path}.fields`, `differ from the fields of the stored table ${key} (${storedJson}); replace the tenant's data to change them`);
  }
}

/** The fields of a new table: keys that can be record properties, known types. */
export function assertValidFields(fields: readonly TableField[], path: string): void {
  const taken = new Set<string>();
  fields.forEach((field, index) => {
    const problem = tableFieldKeyProblem(field.key, taken);
    if (problem) throw new DatasetError(`${path}.fields[${index}].key`, `${JSON.stringify(field.key)} ${problem}`);
    if (!FIELD_TYPES.includes(field.type)) throw new DatasetError(`${path}.fields[${index}].type`, `must be one of ${FIELD_TYPES.join(', ')}`);
    taken.add(field.key);
  });
}

/** A reporting line's month and stored bodies (see domain/reportingJson.ts, domain/v2Json.ts). */
export function renderedLine(
  line: StatementLine,
  user: { json: string; user: UserReference },
  metricKeys: readonly string[],
  origin: Origin,
  index: number,
): { month: MonthIndex; body: string; bodyV2: string } {
  const month = monthOfDate(line.date);
  if (month === undefined) throw new DatasetError(`${itemPath(origin, index)}.date`, 'must be a date YYYY-MM-DD that exists');
  try {
    return { month, body: renderReportingBody(line, user.json, metricKeys), bodyV2: renderStatementV2(line, user.user, metricKeys) };
  } catch (error) {
    throw new DatasetError(itemPath(origin, index), (error as Error).message);
  }
}

/** A table record's stored JSON, v1's and v2's; `isUser` tells the user ids of the tenant (fields of type `user`). */
export function renderedTableRecord(
  fields: readonly TableField[],
  record: TableRecordInput,
  userIds: { fields: readonly string[]; isUser(id: string): boolean },
  origin: Origin,
  index: number,
): { body: string; bodyV2: string } {
  let body: string;
  try {
    body = renderTableRecord(fields, record);
  } catch (error) {
    if (!(error instanceof FieldValueError)) throw error;
    throw new DatasetError(`${itemPath(origin, index)}.${error.field}`, error.problem);
  }
  for (const key of userIds.fields) {
    const userId = record[key];
    if (typeof userId === 'string' && !userIds.isUser(userId)) throw new DatasetError(`${itemPath(origin, index)}.${key}`, `no user with id ${userId}`);
  }
  return { body, bodyV2: renderTableRecordV2(fields, record) };
}

export function duplicateId(origin: Origin, index: number, id: string): DatasetError {
  return new DatasetError(`${itemPath(origin, index)}.id`, `${JSON.stringify(id)} is given twice (ids are unique)`);
}

export function unknownUserId(path: string, userId: string): DatasetError {
  return new DatasetError(path, `no user with id ${userId}`);
}

export function emailTaken(origin: Origin, index: number, email: string, owner: string): DatasetError {
  return new DatasetError(`${itemPath(origin, index)}.email`, `${email} is the e-mail address of user ${owner}`);
}

export function unknownDimensionKey(origin: Origin, index: number, key: string): DatasetError {
  return new DatasetError(`${itemPath(origin, index)}.group_dimension`, `no dimension ${key}`);
}

export function ownManagerError(origin: Origin, index: number): DatasetError {
  return new DatasetError(`${itemPath(origin, index)}.manager`, 'a user cannot be their own manager');
}

export function unknownTable(path: string, key: string): DatasetError {
  return new DatasetError(path, `no data table ${key}`);
}

/** Refuses, as the load's error at `path`, text the engine cannot store. */
export type TextCheck = (text: string, path: string) => void;

/** The {@link TextCheck} of an engine: where its text cannot hold U+0000 (PostgreSQL's), such text is refused. */
export function textCheckFor(textHoldsNul: boolean): TextCheck {
  if (textHoldsNul) return () => {};
  return (text, path) => {
    if (text.includes('\u0000')) throw new DatasetError(path, 'must not contain the character U+0000 (text in this database cannot hold it)');
  };
}
