import type { components } from '../../generated/api.js';

/**
 * The shapes the client hands out, derived from the generated types (never a second copy of a
 * schema). The contract types custom fields through an index signature, so a record's
 * `new_arr` reads as `number | null | string[] | string`; the generics below let a caller name
 * the metrics, dimensions and table fields they read and get each typed as the contract says
 * for its kind. The names are a promise of the caller (like a cast); the server is not asked.
 */
type Schemas = components['schemas'];

/** A schema's named properties, without its index signature (`[key: string]: ...`). */
type NamedProperties<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };
/** What a schema's index signature holds: the type of every property it does not name. */
type ExtraProperty<T> = T extends { [key: string]: infer V } ? V : never;
/** Spells out an intersection as one object type, so that editors show its fields. */
type Flat<T> = { [K in keyof T]: T[K] } & {};

type ReportingModel = Schemas['StatementReportingRecordModel'];
type TableModel = Schemas['DataTableRecord'];

/** ISO 4217 code, as the contract types it. */
export type CurrencyCode = Schemas['CurrencyCode'];
/** A custom metric's value: a number, or `null` when the statement line has none. */
export type MetricValue = Extract<ExtraProperty<ReportingModel>, number | null>;
/** A custom dimension's value: the group names of the record's user in the record's month. */
export type DimensionValue = Extract<ExtraProperty<ReportingModel>, string[]>;
/** A data-table field's value (`null`: no value). */
export type TableFieldValue = ExtraProperty<TableModel>;

/** The standard fields of a statement reporting record: what every tenant's records carry. */
export type StandardReportingFields = NamedProperties<ReportingModel>;

/**
 * The custom fields a caller reads from reporting records, by key: for example
 * `{ metrics: 'new_arr' | 'services_revenue'; dimensions: 'region' }`.
 */
export interface CustomFields {
  metrics?: string;
  dimensions?: string;
}

type MetricKeys<F> = F extends { metrics: infer M extends string } ? M : never;
type DimensionKeys<F> = F extends { dimensions: infer D extends string } ? D : never;

/**
 * A statement reporting record. Without `F`, the contract's type as generated (custom fields
 * reachable only as the union of every kind). With `F`, the standard fields plus, for each
 * metric `m`, `m: number | null` and `m_currency: string`, and for each dimension `d`,
 * `d: string[]`; any other key is a type error.
 */
export type ReportingRecord<F extends CustomFields | undefined = undefined> = [F] extends [CustomFields]
  ? Flat<
      StandardReportingFields &
        { [K in MetricKeys<F>]: MetricValue } &
        { [K in `${MetricKeys<F>}_currency`]: CurrencyCode } &
        { [K in DimensionKeys<F>]: DimensionValue }
    >
  : ReportingModel;

/** The fields a caller reads from a data table's records, by key and type, e.g. `{ name: string; amount: number | null }`. */
export type TableFields = Record<string, TableFieldValue>;

/** A data-table record: `id`, plus `T`'s fields when given (otherwise the contract's index signature). */
export type TableRecord<T extends TableFields | undefined = undefined> = [T] extends [TableFields]
  ? Flat<NamedProperties<TableModel> & T>
  : TableModel;

/** A stored group attribution, as the read-back and the bulk response give it. */
export type GroupAttribution = Schemas['GroupAttributionResponseItem'];
/** A stored manager attribution, as the read-back and the bulk response give it. */
export type ManagerAttribution = Schemas['ManagerAttributionResponseItem'];

/** One item of a bulk upsert: a group item or a manager item. */
export type BulkItem = Schemas['GroupsBulkPutBody']['data'][number];
/** The answer to a bulk upsert: `count` items written, echoed in request order, normalised. */
export type BulkResult = Schemas['GroupsBulkSuccessModelResponse'];

/** A page of the paged envelope whose `data` holds `R`: `count`, `data`, and `next` when more follow. */
export type Page<R> = Flat<Omit<Schemas['StatementReportingRecordPage'], 'data' | 'sync_token'> & { data: R[] }>;

/** A v2 data structure: the tenant's statement reporting or one data table, with its id. */
export type DataStructure = Schemas['DataStructure'];
/** The answer of `GET /v2/data-structures`: the statement reporting, then each data table. */
export type DataStructureListing = Schemas['DataStructureListing'];
/** The answer of `GET /v2/data-structures/{table_id}/fields`. */
export type V2FieldListing = Schemas['V2FieldListing'];
/** A field of a v2 structure: `api_key`, `type`, `format`, `origin`, ..., and the `properties` of an object field. */
export type V2Field = Schemas['V2Field'];
/** A property of an object field (an amount's `value`, a user reference's `email`, ...): `{ type, required }`. */
export type V2FieldProperty = Schemas['V2FieldProperty'];
/**
 * A v2 record, keyed by prefixed field keys (`standard.id`, `custom.new_arr`, `datatable.amount`,
 * ...): `standard.id` (a statement's or a data table record's id) and `standard.last_modified_at`
 * are in every record.
 */
export type V2Record = Schemas['V2Record'];
/** A v2 amount: `{ value, currency }`, as a v2 record holds `standard.payment` or a metric (`custom.new_arr`). */
export type V2Amount = Schemas['V2Amount'];
/** The body of a call to a webhook endpoint: a statement sent to payroll, with its records (the contract's `webhooks`). */
export type StatementWebhookBody = Schemas['StatementWebhookBody'];
/** A page of v2 records: `data`, and `meta` (`next_start_id`, `has_more`, `next_url`). */
export type V2RecordPage = Schemas['V2RecordPage'];
