import { renderGroupItem, renderManagerItem } from '../../domain/attributionJson.js';
import { asciiLowerCase } from '../../domain/emailKey.js';
import { EMPTY_LISTING, isGroupKey, isManagerKey, listingSource, SINCE_ALWAYS } from '../paging/attributionListing.js';
import type { GroupFilter, ManagerFilter } from '../engine/readSteps.js';
import type { KeyedRow, PagedSource } from '../engine/pagedSource.js';
import { firstRow, rowsOf, statement, storable, type Queryable, type Statement } from './connection.js';

/**
 * The read-back extensions as paged sources (paged as paging/attributionListing.ts says). Rows
 * are read as columns and rendered in JS (domain/attributionJson.ts) in the item shape of the
 * bulk response. The e-mail order is `users.email_key`: the e-mail with ASCII letters lowered,
 * in code point order (SQLite's NOCASE); unique per tenant, so no two users tie. Keys hold that
 * `email_key`.
 */

interface Listing<Row> {
  /** The attribution table, aliased `a`, joined to its user `u` and what the row shows. */
  table: string;
  columns: string;
  joins: string;
  /** The order, first the user's `email_key`, last the row's pk. */
  key: string[];
  /** Conditions of each filter, on `u` or `a`; `$n` is the filter's value. */
  filters: Record<string, string>;
  render: (row: Row) => KeyedRow;
}

type GroupRow = { email: string; email_key: string; dimension: string; group_name: string; start_month: number; end_month: number | null; pk: number };
type ManagerRow = { email: string; email_key: string; manager: string; start_month: number | null; end_month: number | null; pk: number };

const GROUPS: Listing<GroupRow> = {
  table: 'group_attributions',
  columns: 'u.email, u.email_key, d.key AS dimension, g.name AS group_name, a.start_month, a.end_month, a.pk',
  joins: `JOIN dimensions d ON d.tenant_id = a.tenant_id AND d.pk = a.dimension_pk
          JOIN groups g ON g.tenant_id = a.tenant_id AND g.pk = a.group_pk`,
  key: ['u.email_key', 'd.key', 'a.start_month', 'a.pk'],
  filters: { user: 'u.pk = $n', dimension: 'a.dimension_pk = $n' },
  render: (row) => [
    renderGroupItem({ user: row.email, group_dimension: row.dimension, group: row.group_name, start: row.start_month, end: row.end_month }),
    JSON.stringify([row.email_key, row.dimension, row.start_month, row.pk]),
  ],
};

const MANAGERS: Listing<ManagerRow> = {
  table: 'manager_attributions',
  columns: 'u.email, u.email_key, m.email AS manager, a.start_month, a.end_month, a.pk',
  joins: 'JOIN users m ON m.tenant_id = a.tenant_id AND m.pk = a.manager_pk',
  key: ['u.email_key', `coalesce(a.start_month::bigint, ${SINCE_ALWAYS})`, 'a.pk'],
  filters: { user: 'u.pk = $n' },
  render: (row) => [
    renderManagerItem({ user: row.email, manager: row.manager, start: row.start_month, end: row.end_month }),
    JSON.stringify([row.email_key, row.start_month ?? SINCE_ALWAYS, row.pk]),
  ],
};

const userPk = statement<[number, string], { pk: number }>('SELECT pk FROM users WHERE tenant_id = $1 AND email_key = $2');
const dimensionPk = statement<[number, string], { pk: number }>('SELECT pk FROM dimensions WHERE tenant_id = $1 AND key = $2');

/** The read-backs of a tenant, over a pool or a transaction's connection. */
export const attributionReads = {
  async groups(db: Queryable, tenantId: number, filter: GroupFilter): Promise<PagedSource> {
    const user = filter.user === undefined ? undefined : await userOf(db, tenantId, filter.user);
    const dimension = filter.dimension === undefined || !storable(filter.dimension) ? undefined : (await firstRow(db, dimensionPk, tenantId, filter.dimension))?.pk;
    if ((filter.user !== undefined && user === undefined) || (filter.dimension !== undefined && dimension === undefined)) return EMPTY_LISTING;
    return listing(db, GROUPS, tenantId, { user, dimension }, isGroupKey);
  },
  async managers(db: Queryable, tenantId: number, filter: ManagerFilter): Promise<PagedSource> {
    const user = filter.user === undefined ? undefined : await userOf(db, tenantId, filter.user);
    if (filter.user !== undefined && user === undefined) return EMPTY_LISTING;
    return listing(db, MANAGERS, tenantId, { user }, isManagerKey);
  },
};

const userOf = async (db: Queryable, tenantId: number, email: string) =>
  storable(email) ? (await firstRow(db, userPk, tenantId, asciiLowerCase(email)))?.pk : undefined;

/** Statements of each listing and set of filters, written once. */
const prepared = new Map<string, ReturnType<typeof listingStatements>>();

function listing<Row>(
  db: Queryable,
  shape: Listing<Row>,
  tenantId: number,
  filters: Record<string, number | undefined>,
  isKey: (key: unknown) => key is unknown[],
): PagedSource {
  const given = Object.entries(filters).filter((entry): entry is [string, number] => entry[1] !== undefined);
  const name = `${shape.table}:${given.map(([filter]) => filter).join(',')}`;
  let statements = prepared.get(name) as ReturnType<typeof listingStatements<Row>> | undefined;
  if (!statements) {
    statements = listingStatements(shape, given.map(([filter]) => filter));
    prepared.set(name, statements as ReturnType<typeof listingStatements>);
  }
  const { at, fromUser, perUser, after, total } = statements;
  const bound = [tenantId, ...given.map(([, value]) => value)];
  const keyed = async (s: Statement<unknown[], Row>, ...more: unknown[]) => (await rowsOf(db, s, ...bound, ...more)).map(shape.render);
  return listingSource(
    {
      at: (from, n) => keyed(at, n, from),
      fromUser: (email, skip, n) => keyed(fromUser, n, skip, email),
      perUser: async () => (await rowsOf(db, perUser, ...bound)).map((row): [string, number] => [row.email_key, row.count]),
      after: (key, n) => keyed(after, n, ...key),
      total: async () => (await firstRow(db, total, ...bound))!.count,
    },
    isKey,
  );
}

/**
 * `$1` is the tenant, then one parameter per filter given, then the page's: the number of rows,
 * then the offset (`at`), or the number to skip and the first user's `email_key` (`fromUser`),
 * or the last key (`after`). Every statement seeks by `(tenant_id, email_key)` and sorts only
 * within a user's rows.
 */
function listingStatements<Row>(shape: Listing<Row>, filters: readonly string[]) {
  const conditions = filters.map((filter, i) => shape.filters[filter]!.replace('$n', `$${i + 2}`));
  const where = ['u.tenant_id = $1', ...conditions].join(' AND ');
  const userWhere = ['u.tenant_id = $1', ...conditions.filter((c) => c.startsWith('u.'))].join(' AND ');
  const rowWhere = conditions.filter((c) => c.startsWith('a.')).map((c) => ` AND ${c}`).join('');
  const page = filters.length + 2;
  const order = shape.key.join(', ');
  const select = `SELECT ${shape.columns} FROM users u JOIN ${shape.table} a ON a.tenant_id = u.tenant_id AND a.user_pk = u.pk ${shape.joins}`;
  const lastKey = shape.key.map((_, i) => `$${page + 1 + i}`).join(', ');
  const rowsOfUser = `SELECT count(*) FROM ${shape.table} a WHERE a.tenant_id = $1 AND a.user_pk = u.pk${rowWhere}`;
  return {
    at: statement<unknown[], Row>(`${select} WHERE ${where} ORDER BY ${order} LIMIT $${page} OFFSET $${page + 1}`),
    fromUser: statement<unknown[], Row>(`${select} WHERE ${where} AND u.email_key >= $${page + 2} ORDER BY ${order} LIMIT $${page} OFFSET $${page + 1}`),
    perUser: statement<unknown[], { email_key: string; count: number }>(
      `SELECT u.email_key, (${rowsOfUser}) AS count FROM users u WHERE ${userWhere} ORDER BY u.email_key`,
    ),
    after: statement<unknown[], Row>(
      `${select} WHERE ${where} AND u.email_key >= $${page + 1} AND (${order}) > (${lastKey}) ORDER BY ${order} LIMIT $${page}`,
    ),
    total: statement<unknown[], { count: number }>(`SELECT count(*) AS count FROM users u JOIN ${shape.table} a ON a.tenant_id = u.tenant_id AND a.user_pk = u.pk WHERE ${where}`),
  };
}
