import { structureId, type Structure } from '../domain/v2Json.js';
import type { Principal } from '../store/vocabulary/tenancy.js';
import type { RequestStore } from '../store/store.js';
import type { TableSummary } from '../store/vocabulary/readShapes.js';
import { problems } from './problems.js';
import { BoundedMap } from '../domain/boundedMap.js';

/** The id of the statement reporting structure (the same for every tenant). */
export const STATEMENTS_ID = structureId({ kind: 'statements' });

/** A data structure of the tenant as `GET /v2/data-structures` lists it. */
export interface ListedStructure {
  id: string;
  structure: Structure;
  table?: TableSummary;
}

/**
 * The table key of each data table structure id derived so far. An id is a hash of its table's
 * key, the same for every tenant, so a page of a table's records finds its key here instead of
 * listing the tenant's tables with their record counts on every request. A key learnt from another tenant names no table of this one, and
 * its page is the same 404. Forgotten (and learnt again) past {@link KNOWN_KEYS_AT_MOST} keys.
 */
const KNOWN_KEYS_AT_MOST = 10_000;
const keysById = new BoundedMap<string, string>(KNOWN_KEYS_AT_MOST);

function tableId(key: string): string {
  const id = structureId({ kind: 'table', key });
  keysById.set(id, key);
  return id;
}

/** The tenant's data tables as structures, by key. */
export async function tableStructures(store: RequestStore, principal: Principal): Promise<ListedStructure[]> {
  const tables = await store.tables(principal);
  return tables.map((table) => ({ id: tableId(table.key), structure: { kind: 'table', key: table.key }, table }));
}

/** The data table to read whose structure id is `id` (whether the tenant has it, the read says), or a 404 for the statement structure and ids of no table. */
export async function tableToRead(store: RequestStore, principal: Principal, id: string): Promise<Structure> {
  const key = id === STATEMENTS_ID ? undefined : keysById.get(id);
  return key === undefined ? (await tableStructure(store, principal, id)).structure : { kind: 'table', key };
}

/** The data table whose structure id is `id`, or a 404 (the statement structure's id too: its records are its statements). */
export async function tableStructure(store: RequestStore, principal: Principal, id: string): Promise<ListedStructure> {
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
