/**
 * `compdata/client`: a typed client of the compdata API, built on openapi-fetch and the types
 * generated from the contract. See the README's "From TypeScript" section.
 */
export { createClient, type ClientOptions, type CompdataClient, type GroupPageOptions, type ManagerPageOptions, type PagedRead } from './createClient.js';
export { BULK_ITEMS_LIMIT, BulkChunkError, type BulkUpsertOptions, type ChunkOptions } from './attributions.js';
export type { PageOptions } from './paging.js';
export { ProblemError, type ProblemFieldError } from './problemError.js';
export type { RetryOptions } from './retry.js';
export type {
  BulkItem,
  BulkResult,
  CurrencyCode,
  CustomFields,
  DimensionValue,
  GroupAttribution,
  ManagerAttribution,
  MetricValue,
  Page,
  ReportingRecord,
  StandardReportingFields,
  TableFieldValue,
  TableFields,
  TableRecord,
} from './records.js';
