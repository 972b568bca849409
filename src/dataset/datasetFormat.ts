/**
 * The dataset format (openapi/dataset.schema.json): the sections of a dataset, in the order a
 * file must give them, and the elements a reader hands to the element writer one at a time.
 */

export const DATASET_FORMAT = 'compdata-dataset/1';

/** The properties of a dataset, in the order they must come (`format` first, all others optional). */
export const SECTIONS = [
  'format',
  'metrics',
  'dimensions',
  'users',
  'group_attributions',
  'manager_attributions',
  'reporting',
  'statements',
  'tables',
] as const;

export type Section = (typeof SECTIONS)[number];

/** The sections that hold an array of elements (every one but `format`). */
export type ArraySection = Exclude<Section, 'format'>;

/** What an element is: the section it belongs to, or a record of a data table. */
export type ElementKind = Section | 'table_records';

/**
 * One element of a dataset as read (not yet validated: `value` is whatever JSON stood there).
 * `index` is its place in its array; a table element carries the table's key, name and fields
 * (its records follow as `table_records` elements with the table's `table` index).
 */
export type DatasetElement =
  | { readonly kind: 'format'; readonly value: unknown }
  | { readonly kind: ArraySection; readonly index: number; readonly value: unknown }
  | { readonly kind: 'table_records'; readonly table: number; readonly index: number; readonly value: unknown };

/** Where an element stands in the file, as a JSON path: `$.users[3]`, `$.tables[0].records[7]`. */
export function jsonPathOf(element: DatasetElement): string {
  switch (element.kind) {
    case 'format':
      return '$.format';
    case 'table_records':
      return `$.tables[${element.table}].records[${element.index}]`;
    default:
      return `$.${element.kind}[${element.index}]`;
  }
}

/** Longest field name shown whole in a path: an error line stays short whatever the input. */
const MAX_SHOWN_FIELD = 100;

/** The JSON path of an element's field: `$.reporting[5]` + `id` -> `$.reporting[5].id`. */
export function fieldPath(elementPath: string, field: string): string {
  if (field.length > MAX_SHOWN_FIELD) return `${elementPath}[${JSON.stringify(field.slice(0, MAX_SHOWN_FIELD))}...]`;
  return /^[A-Za-z_$][\w$]*$/.test(field) ? `${elementPath}.${field}` : `${elementPath}[${JSON.stringify(field)}]`;
}

/** Shapes of the elements once the schema has accepted them (see openapi/dataset.schema.json). */
export interface KeyElement {
  key: string;
}

export interface GroupAttributionElement {
  user: string;
  group_dimension: string;
  group: string;
  start_date: string;
  end_date?: string | null;
}

export interface ManagerAttributionElement {
  user: string;
  manager: string;
  start_date?: string | null;
  end_date?: string | null;
}

export interface StatementElement {
  user: string;
  month: string;
  status: string;
}

export interface TableElement {
  key: string;
  name: string;
  fields: { key: string; type: string }[];
}
