import { dateRange, type ReportingFilter } from '../../domain/reportingFilter.js';
import { EMPTY_LISTING } from '../paging/attributionListing.js';
import { ALL_POSITIONS, filteredRecords } from '../paging/filteredRecords.js';
import type { KeyedRow, PagedSource } from '../engine/pagedSource.js';
import type { Db } from './db.js';
import { recordV1 } from './recordTexts.js';

/**
 * Filtered statement reporting records (paged as paging/filteredRecords.ts says). Each set of
 * filters reads from the index that holds its records in position order, named in the statement
 * so that the planner cannot choose another: a user's records from
 * `reporting_records_by_user_position` (`user_pk`, then the primary key: `tenant_id`, `pos`), a
 * plan's from `reporting_records_by_plan`, a date range alone from the primary key within the
 * window of positions its months hold (`reporting_records_by_month`). The other filters are
 * checked on the rows read. The plan and the date are read from the stored body; the date only
 * in the first and last month of the range (the months between match whole).
 */
interface Shape {
  user: boolean;
  plan: boolean;
  date: boolean;
}

type Params = Record<string, string | number>;

/** Prepares the statements once per connection, one set per combination of filters. */
export function filteredReporting(db: Db) {
  const userPk = db.prepare<[number, string], number>('SELECT pk FROM users WHERE tenant_id = ? AND email = ? COLLATE NOCASE').pluck();
  const byMonth = 'reporting_records INDEXED BY reporting_records_by_month WHERE tenant_id = @tenant';
  const window = db
    .prepare<Params, [number | null, number | null]>(
      `WITH RECURSIVE months (m) AS (
         SELECT (SELECT month FROM ${byMonth} AND month >= @firstMonth ORDER BY month LIMIT 1)
         UNION ALL
         SELECT (SELECT month FROM ${byMonth} AND month > m ORDER BY month LIMIT 1) FROM months WHERE m < @lastMonth
       )
       SELECT min((SELECT pos FROM ${byMonth} AND month = m ORDER BY pos LIMIT 1)),
              max((SELECT pos FROM ${byMonth} AND month = m ORDER BY pos DESC LIMIT 1))
       FROM months WHERE m <= @lastMonth`,
    )
    .raw();
  const prepared = new Map<string, ReturnType<typeof prepareShape>>();
  const statementsOf = (shape: Shape) => {
    const name = JSON.stringify(shape);
    let statements = prepared.get(name);
    if (!statements) prepared.set(name, (statements = prepareShape(db, shape)));
    return statements;
  };

  return {
    /** The tenant's records that match `filter` (`emptyFragment`: see keys.ts Principal). */
    reporting(tenantId: number, emptyFragment: string, filter: ReportingFilter): PagedSource {
      const params: Params = { tenant: tenantId };
      if (filter.user !== undefined) {
        const user = userPk.get(tenantId, filter.user);
        if (user === undefined) return EMPTY_LISTING;
        params.user = user;
      }
      if (filter.plan !== undefined) params.plan = filter.plan;
      const dates = dateRange(filter);
      let positions = ALL_POSITIONS;
      if (dates) {
        Object.assign(params, dates);
        const [first, last] = window.get({ tenant: tenantId, firstMonth: dates.firstMonth, lastMonth: dates.lastMonth })!;
        if (first === null || last === null) return EMPTY_LISTING;
        positions = { first, last };
      }
      params.last = positions.last;
      const { rows, total } = statementsOf({ user: filter.user !== undefined, plan: filter.plan !== undefined, date: dates !== undefined });
      return filteredRecords({
        // One lower bound for the index range: the later of the window's start and the cursor.
        rows: (after, skip, n) => rows.all({ ...params, empty: emptyFragment, after: Math.max(after, positions.first - 1), skip, n }),
        total: () => total.get({ ...params, first: positions.first })!,
      });
    },
  };
}

function prepareShape(db: Db, shape: Shape) {
  const index = shape.user ? 'INDEXED BY reporting_records_by_user_position' : shape.plan ? 'INDEXED BY reporting_records_by_plan' : '';
  const where = ['r.tenant_id = @tenant', 'r.pos <= @last'];
  if (shape.user) where.push('r.user_pk = @user');
  if (shape.plan) where.push(`json_extract(r.body || '}', '$.plan') = @plan`);
  if (shape.date) {
    // `+` keeps the month index out of the plan: it would give the rows out of position order.
    where.push('+r.month BETWEEN @firstMonth AND @lastMonth');
    where.push(`(r.month > @firstMonth AND r.month < @lastMonth OR json_extract(r.body || '}', '$.date') BETWEEN @from AND @to)`);
  }
  const conditions = where.join(' AND ');
  const rowsSql = `SELECT ${recordV1('ifnull(d.fragment, @empty)')}, CAST(r.pos AS TEXT)
     FROM reporting_records r ${index}
     LEFT JOIN dimension_values d ON d.user_pk = r.user_pk AND d.month = r.month
     WHERE ${conditions} AND r.pos > @after ORDER BY r.pos LIMIT @n OFFSET @skip`;
  const totalSql = `SELECT count(*) FROM reporting_records r ${index} WHERE ${conditions} AND r.pos >= @first`;
  assertPositionOrder(db, rowsSql);
  return {
    rows: db.prepare<Params, KeyedRow>(rowsSql).raw(),
    total: db.prepare<Params, number>(totalSql).pluck(),
  };
}

/** The rows must come from an index in position order, never sorted afterwards (a sort would read every matching row). */
function assertPositionOrder(db: Db, sql: string): void {
  const anyValues = { tenant: 0, first: 0, last: 0, user: 0, plan: '', firstMonth: 0, lastMonth: 0, from: '', to: '', empty: '}', after: 0, n: 1, skip: 0 };
  const plan = db.prepare<Params, { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`).all(anyValues);
  if (plan.some((step) => /TEMP B-TREE|SCAN r\b/.test(step.detail))) {
    throw new Error(`unexpected plan for a filtered page (rows would be sorted or scanned): ${plan.map((step) => step.detail).join('; ')}`);
  }
}
