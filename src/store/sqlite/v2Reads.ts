import type { V2Reads } from '../engine/readSteps.js';
import type { Db } from './db.js';
import { prepareJoinedPage } from './pagedReads.js';

/** The parameters of a v2 read: the tenant, the table (the tenant for the statements), positions, the statements' empty fields, time bounds, rows wanted. */
type V2Params = { tenant: number; owner: number; from: number; n: number; empty?: string; after?: string; before?: string };

/** The field v2 writes for a record's time of last change (`time`), closing the record. */
const timeField = (time: string) => `',"standard.last_modified_at":"' || ${time} || '"}'`;

// A CASE costs less per record than max() (a function call); a fields row without a time is older.
const recordTime = 'CASE WHEN d.changed_at > r.changed_at THEN d.changed_at ELSE r.changed_at END';
const statementTime = `CASE WHEN s.changed_at > ${recordTime} THEN s.changed_at ELSE ${recordTime} END`;
// Each `||` copies both sides: the small parts are joined first, so the body, most of the
// text, is copied once, and the record's own time is its stored field (one copy fewer per
// record than joining it here; the fields' time, when later, is joined here).
// The tenant's empty fields (`@empty`) are read apart and passed in, as v1's are: a subquery
// for them in the page's statement cost about a tenth of it, though SQLite reads it once.
// The statement's fields (migration 16) are joined by the line's user and month, as its dimension fields are.
const statement = `r.body || (ifnull(s.fields_v2, '') || ifnull(d.fragment_v2, @empty)
    || CASE WHEN s.changed_at > ${recordTime} THEN ${timeField('s.changed_at')}
            WHEN d.changed_at > r.changed_at THEN ${timeField('d.changed_at')} ELSE r.time_field END)`;
const statementJoins = `LEFT JOIN dimension_values d ON d.user_pk = r.user_pk AND d.month = r.month
       LEFT JOIN statements s ON s.tenant_id = r.tenant_id AND s.user_pk = r.user_pk AND s.month = r.month`;
const statementsFrom = `reporting_records_v2 r
       ${statementJoins}
       WHERE r.tenant_id = @owner AND r.pos >= @from`;

/**
 * The records of one statement (its user's and month's lines), rendered as the v2 reads render
 * them, in their order, joined by commas; found through v1's index by user and month.
 */
export function statementRecordsRead(db: Db): (tenant: number, userPk: number, month: number) => { count: number; json: string } {
  const read = db
    .prepare<{ tenant: number; user: number; month: number; empty: string }, [number, string | null]>(
      `SELECT count(*), group_concat(record, ',') FROM (
         SELECT ${statement} AS record FROM reporting_records k
         JOIN reporting_records_v2 r ON r.tenant_id = k.tenant_id AND r.pos = k.pos
         ${statementJoins}
         WHERE k.user_pk = @user AND k.month = @month AND k.tenant_id = @tenant ORDER BY k.pos)`,
    )
    .raw();
  const emptyFields = db.prepare<[number], string>('SELECT empty_fragment_v2 FROM tenants WHERE id = ?').pluck();
  return (tenant, user, month) => {
    const [count, json] = read.get({ tenant, user, month, empty: emptyFields.get(tenant)! })!;
    return { count, json: json ?? '' };
  };
}

/**
 * The v2 reads on SQLite (migrations 8, 13 and 15), prepared once per connection: the stored v2
 * texts joined with their statement's fields, their dimension fields and the time of their last
 * change (the latest of the record's, its dimension fields' and its statement's, each stored
 * beside its stamp), a page read in one statement by position.
 */
export function v2Reads(db: Db) {
  const tableRecord = `r.body_v2 || (${timeField('r.changed_at')})`;
  const tableFrom = 'table_records r WHERE r.table_pk = @owner AND r.pos >= @from';
  const joinedStatements = prepareJoinedPage<V2Params, JoinedRow>(db, joined(statement, statementsFrom, 'reporting_records_v2', 'tenant_id'), 'tenant_id');
  const joinedTable = prepareJoinedPage<V2Params, JoinedRow>(db, joined(tableRecord, tableFrom, 'table_records', 'table_pk'), 'table_pk');
  const changedStatements = db
    .prepare<V2Params, [string, string]>(
      `SELECT ${statement}, (SELECT id FROM reporting_records WHERE tenant_id = r.tenant_id AND pos = r.pos)
       FROM ${statementsFrom} AND ${statementTime} > @after AND ${statementTime} < @before ORDER BY r.pos LIMIT @n`,
    )
    .raw();
  const changedTable = db
    .prepare<V2Params, [string, string]>(`SELECT ${tableRecord}, r.id FROM ${tableFrom} AND r.changed_at > @after AND r.changed_at < @before ORDER BY r.pos LIMIT @n`)
    .raw();
  const statementPosition = db
    .prepare<{ tenant: number; id: string }, number>(
      `SELECT ifnull((SELECT pos FROM reporting_records WHERE tenant_id = @tenant AND id = @id),
                     (SELECT pos FROM removed_records WHERE tenant_id = @tenant AND structure = '' AND id = @id))`,
    )
    .pluck();
  const tableRecordPosition = db
    .prepare<{ tenant: number; table: number; key: string; id: string }, number>(
      `SELECT ifnull((SELECT pos FROM table_records WHERE table_pk = @table AND id = @id),
                     (SELECT pos FROM removed_records WHERE tenant_id = @tenant AND structure = @key AND id = @id))`,
    )
    .pluck();
  const tableOf = db.prepare<[number, string], number>('SELECT pk FROM data_tables WHERE tenant_id = ? AND key = ?').pluck();
  const emptyFields = db.prepare<[number], string>('SELECT empty_fragment_v2 FROM tenants WHERE id = ?').pluck();
  const statementAt = db.prepare<[number, number], string>('SELECT id FROM reporting_records WHERE tenant_id = ? AND pos = ?').pluck();
  const tableRecordAt = db.prepare<[number, number], string>('SELECT id FROM table_records WHERE table_pk = ? AND pos = ?').pluck();

  const page = ([count, json, more]: JoinedRow) => ({ count, json: json ?? Buffer.alloc(0), more: more === 1 });
  return {
    statements: (tenant: number): V2Reads => ({
      positionOf: (id) => statementPosition.get({ tenant, id }) ?? undefined,
      joined: (from, n) => page(joinedStatements.get({ tenant, owner: tenant, from, n, empty: emptyFields.get(tenant)! })!),
      idAt: (position) => statementAt.get(tenant, position)!,
      changedBetween: (from, after, before, n) => changedStatements.all({ tenant, owner: tenant, from, after, before, n, empty: emptyFields.get(tenant)! }),
    }),
    tableRecords(tenant: number, key: string): V2Reads | undefined {
      const table = tableOf.get(tenant, key);
      if (table === undefined) return undefined;
      return {
        positionOf: (id) => tableRecordPosition.get({ tenant, table, key, id }) ?? undefined,
        joined: (from, n) => page(joinedTable.get({ tenant, owner: table, from, n })!),
        idAt: (position) => tableRecordAt.get(table, position)!,
        changedBetween: (from, after, before, n) => changedTable.all({ tenant, owner: table, from, after, before, n }),
      };
    },
  };
}

/** A row of a {@link joined} statement: the count, the joined JSON (null when no row), whether more follow (1 or 0). */
type JoinedRow = [count: number, json: Buffer | null, more: number];

/** A page by position, as pagedReads.ts reads v1's. */
function joined(record: string, from: string, table: string, owner: string): string {
  return `SELECT count(*), CAST(group_concat(${record}, ',') AS BLOB), EXISTS (SELECT 1 FROM ${table} WHERE ${owner} = @owner AND pos = @from + @n)
          FROM ${from} AND r.pos < @from + @n`;
}
