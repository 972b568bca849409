import { structureId, type Structure } from '../domain/v2Json.js';
import type { Principal, Store, TableSummary } from '../store/store.js';
import { problems } from './problems.js';

/** The id of the statement reporting structure (the same for every tenant). */
export const STATEMENTS_ID = structureId({ kind: 'statements' });

/** A data structure of the tenant as `GET /v2/data-structures` lists it. */
export interface ListedStructure {
  id: string;
  structure: Structure;
  table?: TableSummary;
}

/** The tenant's data tables as structures, by key. */
export async function tableStructures(store: Store, principal: Principal): Promise<ListedStructure[]> {
  const tables = await store.tables(principal);
  return tables.map((table) => ({ id: structureId({ kind: 'table', key: table.key }), structure: { kind: 'table', key: table.key }, table }));
}

/** The data table whose structure id is `id`, or a 404 (the statement structure's id too: its records are its statements). */
export async function tableStructure(store: Store, principal: Principal, id: string): Promise<ListedStructure> {
  const found = id === STATEMENTS_ID ? undefined : (await tableStructures(store, principal)).find((listed) => listed.id === id);
  if (!found) throw unknownStructure(id);
  return found;
}

// The same answer whether or not another tenant has such a table (docs/rules.md#data-tables).
export const unknownStructure = (id: string) =>
  problems.notFound(
    id === STATEMENTS_ID
      ? 'The statement reporting structure has no records here: read GET /v2/reporting/{table_id}/statements.'
      : `No data structure ${JSON.stringify(id)} exists.`,
  );
