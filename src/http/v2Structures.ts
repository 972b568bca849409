import { reportingFields, STANDARD_FIELD_COUNT, tableFields } from '../domain/fieldListing.js';
import { structureId, v2Fields, type StructureOrigin, type V2FieldPlan } from '../domain/v2Shapes.js';
import type { ChangedSource, Principal, Store } from '../store/store.js';
import { problems } from './problems.js';

/** A data structure of the tenant that an id named, with the fields of its records. */
export interface ResolvedStructure {
  id: string;
  origin: StructureOrigin;
  /** The listing its records are read from. */
  source: ChangedSource;
  fields: V2FieldPlan[];
}

/**
 * The data structure `id` names among the tenant's (docs/rules.md#v2-reads), its fields rendered
 * from v1's field model (domain/fieldListing.ts); a 404 when it names none, the same whether or not
 * another tenant has it.
 */
export async function resolveStructure(store: Store, principal: Principal, id: string): Promise<ResolvedStructure> {
  if (id === structureId({ kind: 'statements' })) {
    const { metricKeys, dimensions } = await store.reportingSchema(principal);
    const fields = v2Fields('statements', reportingFields(metricKeys, dimensions), STANDARD_FIELD_COUNT);
    return { id, origin: { kind: 'statements' }, source: { kind: 'reporting' }, fields };
  }
  const table = (await store.tables(principal)).find(({ key }) => structureId({ kind: 'table', key }) === id);
  if (!table) throw unknownStructure(id);
  const fields = v2Fields('table', tableFields(table.fields), 1);
  return { id, origin: { kind: 'table', key: table.key }, source: { kind: 'tableRecords', table: table.key }, fields };
}

export const unknownStructure = (id: string) => problems.notFound(`No data structure ${JSON.stringify(id)} exists.`);

/** The path of a structure's records: statements for the statement reporting, records for a data table. */
export const recordsPath = (id: string, origin: StructureOrigin): string =>
  `/v2/reporting/${encodeURIComponent(id)}/${origin.kind === 'statements' ? 'statements' : 'records'}`;
