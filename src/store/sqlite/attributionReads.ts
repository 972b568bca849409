import { EMPTY_LISTING, isGroupStartKey, isManagerKey, listingSource, SINCE_ALWAYS } from '../paging/attributionListing.js';
import type { GroupFilter, ManagerFilter } from '../engine/readSteps.js';
import type { KeyedRow, PagedSource } from '../engine/pagedSource.js';
import type { Db } from './db.js';

/**
 * The read-back extensions (`GET /v1/users/groups`, `GET /v1/users/managers`) as paged sources
 * (paged as paging/attributionListing.ts says). A group attribution's key is its user, dimension
 * and start month (migration 27), a manager attribution's its `pk`; a key read from a cursor is
 * bound as far as the listing's key goes. Rows are rendered as JSON in SQL, in the item
 * shape of the bulk response. The e-mail order is SQLite's NOCASE, the collation of the unique
 * index on e-mails, so no two users tie.
 */

/** A month index as `YYYY-MM`: right for 0000-01..9999-12, the only months stored (migrations.ts). */
const monthJson = (column: string) =>
  `CASE WHEN ${column} IS NULL THEN NULL ELSE printf('%04d-%02d', ${column} / 12, ${column} % 12 + 1) END`;

const GROUPS = {
  table: 'group_attributions',
  from: `users u JOIN group_attributions a ON a.user_pk = u.pk
         JOIN dimensions d ON d.pk = a.dimension_pk JOIN groups g ON g.pk = a.group_pk`,
  row: `json_object('user', u.email, 'group_dimension', d.key, 'group', g.name,
        'start_date', ${monthJson('a.start_month')}, 'end_date', ${monthJson('a.end_month')})`,
  key: ['u.email COLLATE NOCASE', 'd.key', 'a.start_month'],
};

const MANAGERS = {
  table: 'manager_attributions',
  from: 'users u JOIN manager_attributions a ON a.user_pk = u.pk JOIN users m ON m.pk = a.manager_pk',
  row: `json_object('user', u.email, 'manager', m.email,
        'start_date', ${monthJson('a.start_month')}, 'end_date', ${monthJson('a.end_month')})`,
  key: ['u.email COLLATE NOCASE', `ifnull(a.start_month, ${SINCE_ALWAYS})`, 'a.pk'],
};

type Listing = typeof GROUPS;

/** Prepares the read-back statements once per connection (one set per combination of filters). */
export function attributionReads(db: Db) {
  const userPk = db.prepare<[number, string], number>('SELECT pk FROM users WHERE tenant_id = ? AND email = ? COLLATE NOCASE').pluck();
  const dimensionPk = db.prepare<[number, string], number>('SELECT pk FROM dimensions WHERE tenant_id = ? AND key = ?').pluck();
  const groups = listingStatements(db, GROUPS, { user: { user: 'u.pk = @user' }, dimension: { row: 'a.dimension_pk = @dimension' } });
  const managers = listingStatements(db, MANAGERS, { user: { user: 'u.pk = @user' } });

  return {
    groups(tenantId: number, filter: GroupFilter): PagedSource {
      const user = filter.user === undefined ? undefined : userPk.get(tenantId, filter.user);
      const dimension = filter.dimension === undefined ? undefined : dimensionPk.get(tenantId, filter.dimension);
      if ((filter.user !== undefined && user === undefined) || (filter.dimension !== undefined && dimension === undefined)) {
        return EMPTY_LISTING;
      }
      return groups({ tenant: tenantId, user, dimension }, isGroupStartKey);
    },
    managers(tenantId: number, filter: ManagerFilter): PagedSource {
      const user = filter.user === undefined ? undefined : userPk.get(tenantId, filter.user);
      if (filter.user !== undefined && user === undefined) return EMPTY_LISTING;
      return managers({ tenant: tenantId, user }, isManagerKey);
    },
  };
}

type Params = Record<string, number | undefined>;
/** The named parameters of a listing statement: the filters given, and the page's bounds and last key. */
type Bound = Record<string, unknown>;

/** Conditions on the user (`u`) or on the attribution row (`a`), each applied when its parameter is given. */
interface Filters {
  user?: string;
  row?: string;
}

/**
 * The statements of one listing for each set of filters: the tenant's rows, narrowed by each
 * filter whose parameter is given. Prepared on first use, then kept.
 */
function listingStatements(db: Db, listing: Listing, filters: Record<string, Filters>) {
  const prepared = new Map<string, ReturnType<typeof prepareListing>>();
  return (params: Params, isKey: (key: unknown) => key is unknown[]): PagedSource => {
    const given = Object.entries(filters).filter(([name]) => params[name] !== undefined).map(([, filter]) => filter);
    const userWhere = ['u.tenant_id = @tenant', ...given.flatMap((f) => f.user ?? [])].join(' AND ');
    const rowWhere = given.flatMap((f) => f.row ?? []).map((condition) => ` AND ${condition}`).join('');
    const shape = `${userWhere}${rowWhere}`;
    let statements = prepared.get(shape);
    if (!statements) prepared.set(shape, (statements = prepareListing(db, listing, userWhere, rowWhere)));
    const bound = Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined));
    const { at, fromUser, perUser, after, total } = statements;
    return listingSource(
      {
        at: (from, n) => at.all({ ...bound, from, n }),
        fromUser: (email, skip, n) => fromUser.all({ ...bound, k0: email, skip, n }),
        perUser: () => perUser.iterate(bound),
        after: (key, n) => after.all({ ...bound, ...Object.fromEntries(listing.key.map((_, i) => [`k${i}`, key[i]])), n }),
        total: () => total.get(bound)!,
      },
      isKey,
    );
  };
}

/**
 * Every statement bounds the e-mail from below (`>= ''` is always true) so that the planner
 * walks the index on e-mails in order and sorts only each user's few rows, instead of sorting
 * all the tenant's rows; in `after` and `fromUser` the bound is a user's e-mail, so they seek
 * there, and the row value of `after` keeps the exact order. The counts need no dimension,
 * group or manager row (the foreign keys guarantee them).
 */
function prepareListing(db: Db, { table, from, row, key }: Listing, userWhere: string, rowWhere: string) {
  const order = key.join(', ');
  const where = `${userWhere}${rowWhere}`;
  const select = `SELECT ${row} AS row, json_array(${key.map((k) => k.replace(' COLLATE NOCASE', '')).join(', ')}) AS key FROM ${from}`;
  const lastKey = key.map((_, i) => `@k${i}`).join(', ');
  const rowsOfUser = `SELECT count(*) FROM ${table} a WHERE a.user_pk = u.pk${rowWhere}`;
  return {
    at: db.prepare<Bound, KeyedRow>(`${select} WHERE ${where} AND ${key[0]} >= '' ORDER BY ${order} LIMIT @n OFFSET @from`).raw(),
    fromUser: db.prepare<Bound, KeyedRow>(`${select} WHERE ${where} AND ${key[0]} >= @k0 ORDER BY ${order} LIMIT @n OFFSET @skip`).raw(),
    perUser: db.prepare<Bound, [string, number]>(`SELECT u.email, (${rowsOfUser}) FROM users u WHERE ${userWhere} AND ${key[0]} >= '' ORDER BY ${key[0]}`).raw(),
    after: db
      .prepare<Bound, KeyedRow>(`${select} WHERE ${where} AND ${key[0]} >= @k0 AND (${order}) > (${lastKey}) ORDER BY ${order} LIMIT @n`)
      .raw(),
    total: db.prepare<Bound, number>(`SELECT count(*) FROM users u JOIN ${table} a ON a.user_pk = u.pk WHERE ${where}`).pluck(),
  };
}
