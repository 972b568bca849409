import type { components } from '../../generated/api.js';
import type { Upsert } from '../domain/bulkItems.js';
import { formatMonth, parseMonth, type MonthIndex } from '../domain/months.js';
import { periodProblem } from '../domain/periods.js';
import type { ParamProblem } from '../domain/paging.js';
import type { WrittenItem } from '../store/vocabulary/writeShapes.js';

type Schemas = components['schemas'];
type RequestItem = Schemas['GroupsBulkPutBody']['data'][number];
type ResponseItem = Schemas['GroupsBulkSuccessModelResponse']['data'][number];

/**
 * The wire form of the bulk items (`YYYY-MM` months, optional dates) and the domain form
 * (month indexes, `null` for an open end). The body has passed the schema, so every month
 * parses; what is left to check here is the order of the two dates of an item (`400`).
 */
export function upsertsFromBody(data: readonly RequestItem[]): { upserts: Upsert[] } | { problems: ParamProblem[] } {
  const problems: ParamProblem[] = [];
  const upserts = data.map((item, index): Upsert => {
    const start = monthOrNull(item.start_date);
    const end = monthOrNull(item.end_date);
    const problem = periodProblem({ start, end });
    if (problem) problems.push({ pointer: `/data/${index}/end_date`, message: problem });
    if ('manager' in item) return { kind: 'manager', user: item.user, manager: item.manager, start, end };
    return { kind: 'group', user: item.user, dimension: item.group_dimension, group: item.group, start: start!, end };
  });
  return problems.length > 0 ? { problems } : { upserts };
}

/** The normalised echo of an item written: e-mails as stored, `end_date` (and a manager item's `start_date`) always present. */
export function echoItem(upsert: Upsert, written: WrittenItem): ResponseItem {
  const start_date = monthText(upsert.start);
  const end_date = monthText(upsert.end);
  if (upsert.kind === 'manager') return { user: written.user, manager: written.manager!, start_date, end_date };
  return { user: written.user, group_dimension: upsert.dimension, group: upsert.group, start_date: start_date!, end_date };
}

function monthOrNull(text: string | null | undefined): MonthIndex | null {
  if (text === undefined || text === null) return null;
  const month = parseMonth(text);
  if (month === undefined) throw new TypeError(`a month that passed the schema does not parse: ${text}`);
  return month;
}

function monthText(month: MonthIndex | null): string | null {
  return month === null ? null : formatMonth(month);
}
