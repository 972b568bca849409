/**
 * What must not compile: each `@ts-expect-error` line must be an error, or tsc reports the
 * directive as unused and the type test fails.
 */
import { createClient, ProblemError, type CompdataClient, type V2FieldProperty } from 'compdata/client';

declare const client: CompdataClient;

export async function customFields() {
  for await (const record of client.reporting.records<{ metrics: 'new_arr'; dimensions: 'region' }>()) {
    // @ts-expect-error a metric may be null
    const value: number = record.new_arr;
    // @ts-expect-error a dimension is a list of group names
    const group: string = record.region;
    // @ts-expect-error a currency is a code
    const currency: number = record.new_arr_currency;
    // @ts-expect-error a key not named is not a field (a typo, say)
    void record.regoin;
    // @ts-expect-error neither is a dimension's currency
    void record.region_currency;
    void [value, group, currency];
  }
  for await (const record of client.reporting.records()) {
    // @ts-expect-error without names, a custom field is the union of every kind
    const value: number | null = record.new_arr;
    void value;
  }
  // @ts-expect-error keys are strings
  client.reporting.records<{ metrics: 42 }>();
  // @ts-expect-error only metrics and dimensions
  client.reporting.records<{ measures: 'new_arr' }>();
}

export function tablesAndOptions() {
  // @ts-expect-error a table field holds a string, a number or null
  client.tables.records<{ won: boolean }>('deals');
  // @ts-expect-error the table key is required
  client.tables.records();
  // @ts-expect-error limit is a number
  client.reporting.pages({ limit: '100' });
  // @ts-expect-error the managers read-back has no dimension filter
  client.attributions.managers.records({ group_dimension: 'region' });
  // @ts-expect-error no cursor option: next is followed as the server gives it
  client.attributions.groups.pages({ cursor: 'abc' });
}

export async function bulkItems() {
  // @ts-expect-error a group item needs group_dimension and start_date
  await client.attributions.bulkUpsert([{ user: 'ada@example.com', group: 'EMEA' }]);
  // @ts-expect-error no field outside the two item forms
  await client.attributions.bulkUpsert([{ user: 'ada@example.com', manager: 'grace@example.com', weight: 1 }]);
  // @ts-expect-error chunks are sized by `size`
  await client.attributions.bulkUpsertInChunks([], { chunk: 100 });
}

export function clientOptions(error: ProblemError) {
  // @ts-expect-error the key is required
  createClient({ baseUrl: 'http://127.0.0.1:8080' });
  // @ts-expect-error attempts is a number
  createClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'k', retry: { attempts: '3' } });
  // @ts-expect-error a problem's fields are read-only
  error.status = 500;
}

export function v2Options() {
  // @ts-expect-error a data table's records need its structure id
  client.v2.records.records();
  // @ts-expect-error v2 pages by start_id, not by offset
  client.v2.statements.pages({ offset: 10 });
  // @ts-expect-error a start id is a record's id, as text
  client.v2.statements.records({ startId: 10 });
  // @ts-expect-error a time is text or a Date
  client.v2.records.pages('34e95ea1-8cbc-866c-8332-8f647ce1e7b6', { lastModifiedAfter: 1764000000000 });
}

export function v2FieldProperties(): V2FieldProperty[] {
  return [
    // @ts-expect-error a property of an object field is an object, not its type's name (before 2.0.0)
    'number',
    // @ts-expect-error a property says whether it is required
    { type: 'string' },
  ];
}
