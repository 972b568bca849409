import { asciiLowerCase } from '../../domain/emailKey.js';
import { dateRange, type ReportingFilter } from '../../domain/reportingFilter.js';
import { EMPTY_LISTING } from '../paging/attributionListing.js';
import { ALL_POSITIONS, filteredRecords } from '../paging/filteredRecords.js';
import type { KeyedRow, PagedSource } from '../engine/pagedSource.js';
import { firstRow, rowsOf, statement, storable, type Queryable, type Statement } from './connection.js';
import { planOf, recordOf } from './recordParts.js';

/**
 * Filtered statement reporting records (paged as paging/filteredRecords.ts says): the statement
 * of each set of filters reads the records in position order from the index that holds them so
 * (`reporting_records_by_user_position`, `reporting_records_by_plan`; a date range alone reads
 * the primary key within the window of positions its months hold, found on
 * `reporting_records_by_month`), the other filters checked on the rows read. The plan and the
 * date are read from the stored body, the date only in the first and last month of the range.
 */
export const FILTERS = ['user', 'plan', 'date'] as const;
export type FilterName = (typeof FILTERS)[number];

/**
 * The plan and the date of a record, cut from its stored head (recordParts.ts) as JSON text, not
 * parsed: PostgreSQL's JSON functions refuse a text holding an escaped U+0000 anywhere, and the
 * head is JSON text that renderReportingBody writes in a fixed order,
 * `{"id":…,"date":"YYYY-MM-DD","plan":…,"user":`. Inside a JSON string every `"` is escaped,
 * so the first `,"date":"`, `,"plan":` and `,"user":` are those fields. The plan is compared as
 * JSON text (JSON.stringify, as the body was written). The index by plan is on the same expression.
 */
const PLAN_TEXT = planOf('r.head');
const DATE_TEXT = `substr(r.head, strpos(r.head, ',"date":"') + 9, 10)`;

/** The conditions of each filter; `$` stands for the next parameter. */
export const CONDITIONS: Record<FilterName, string[]> = {
  user: ['r.user_pk = $'],
  plan: [`${PLAN_TEXT} = $`],
  date: ['r.month BETWEEN $ AND $', `(r.month > $ AND r.month < $ OR ${DATE_TEXT} BETWEEN $ AND $)`],
};

function shapeStatements(given: readonly FilterName[]) {
  let next = 3;
  const where = ['r.tenant_id = $1', 'r.pos BETWEEN $2 AND $3', ...given.flatMap((name) => CONDITIONS[name])]
    .map((condition) => condition.replace(/\$(?!\d)/g, () => `$${(next += 1)}`))
    .join(' AND ');
  const page = next;
  return {
    rows: statement<unknown[], { record: string; pos: number }>(
      `SELECT ${recordOf('r', 'd', `coalesce(d.fragment, $${page + 1})`)} AS record, r.pos
       FROM reporting_records r
       LEFT JOIN dimension_values d ON d.tenant_id = r.tenant_id AND d.user_pk = r.user_pk AND d.month = r.month
       WHERE ${where} AND r.pos > $${page + 2} ORDER BY r.pos LIMIT $${page + 3} OFFSET $${page + 4}`,
    ),
    total: statement<unknown[], { count: number }>(`SELECT count(*) AS count FROM reporting_records r WHERE ${where}`),
  };
}

/** Every combination of filters, written once (so that each statement is known from the start). */
const SHAPES = new Map(
  Array.from({ length: 2 ** FILTERS.length - 1 }, (_, i) => FILTERS.filter((_, bit) => ((i + 1) >> bit) & 1)).map((given) => [given.join(','), shapeStatements(given)]),
);

const userPk = statement<[number, string], { pk: number }>('SELECT pk FROM users WHERE tenant_id = $1 AND email_key = $2');
const byMonth = 'reporting_records WHERE tenant_id = $1';
/** The months present from `firstMonth` to `lastMonth` (a recursive CTE, SQL expressions both), walked only when `condition` holds. */
export const monthsPresent = (firstMonth: string, lastMonth: string, condition = 'true') => `months (m) AS (
     SELECT (SELECT month FROM ${byMonth} AND month >= ${firstMonth} ORDER BY month LIMIT 1) WHERE ${condition}
     UNION ALL
     SELECT (SELECT month FROM ${byMonth} AND month > m ORDER BY month LIMIT 1) FROM months WHERE m < ${lastMonth}
   )`;
/** The window of positions of {@link monthsPresent} (see `PositionWindow`): `first` and `last`, null when no month is present. */
export const windowOfMonths = (lastMonth: string) => `SELECT min((SELECT pos FROM ${byMonth} AND month = m ORDER BY pos LIMIT 1)) AS first,
          max((SELECT pos FROM ${byMonth} AND month = m ORDER BY pos DESC LIMIT 1)) AS last
   FROM months WHERE m <= ${lastMonth}`;
const positionWindow = statement<[number, number, number], { first: number | null; last: number | null }>(
  `WITH RECURSIVE ${monthsPresent('$2', '$3')}
   ${windowOfMonths('$3')}`,
);

/** The tenant's records that match `filter` (`emptyFragment`: see keys.ts Principal). */
export async function filteredReporting(db: Queryable, tenantId: number, emptyFragment: string, filter: ReportingFilter): Promise<PagedSource> {
  const values: unknown[] = [];
  const given: FilterName[] = [];
  if (filter.user !== undefined) {
    const user = storable(filter.user) ? await firstRow(db, userPk, tenantId, asciiLowerCase(filter.user)) : undefined;
    if (!user) return EMPTY_LISTING;
    given.push('user');
    values.push(user.pk);
  }
  if (filter.plan !== undefined) {
    given.push('plan');
    values.push(JSON.stringify(filter.plan));
  }
  let positions = ALL_POSITIONS;
  const dates = dateRange(filter);
  if (dates) {
    const found = await firstRow(db, positionWindow, tenantId, dates.firstMonth, dates.lastMonth);
    if (found?.first == null || found.last == null) return EMPTY_LISTING;
    positions = { first: found.first, last: found.last };
    given.push('date');
    values.push(dates.firstMonth, dates.lastMonth, dates.firstMonth, dates.lastMonth, dates.from, dates.to);
  }
  const { rows, total } = SHAPES.get(given.join(','))!;
  const bound = [tenantId, positions.first, positions.last, ...values];
  const keyed = (found: { record: string; pos: number }[]) => found.map(({ record, pos }): KeyedRow => [record, String(pos)]);
  return filteredRecords({
    rows: async (after, skip, n) => keyed(await rowsOf(db, rows as Statement<unknown[], { record: string; pos: number }>, ...bound, emptyFragment, after, n, skip)),
    total: async () => (await firstRow(db, total as Statement<unknown[], { count: number }>, ...bound))!.count,
  });
}
