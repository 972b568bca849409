/**
 * `compdata/client`: a typed client of the compdata API, built on openapi-fetch and the types
 * generated from the contract. See docs/client.md.
 */
export { createClient, type ClientOptions, type CompdataClient, type GroupPageOptions, type ManagerPageOptions, type PagedRead } from './createClient.js';
export { BULK_ITEMS_LIMIT, BulkChunkError, type BulkUpsertOptions, type ChunkOptions } from './attributions.js';
export { ARCHIVE_LIMIT, USERS_LIMIT, type ArchiveItem, type ManagerItem, type ManagerWrites, type ManagersResult, type UserItem, type UserWrites, type UsersResult, type WriteOptions } from './userWrites.js';
export type { PageOptions } from './paging.js';
export { ImportWaitTimeout, type DataImport, type IngestOptions, type Ingestion, type WaitOptions } from './tableIngest.js';
export { ProblemError, type ProblemFieldError } from './problemError.js';
export type { V2CallOptions, V2PageOptions, V2Reads, V2StatementReads, V2TableReads } from './v2.js';
export type { RetryOptions } from './retry.js';
export type { BulkItem, BulkResult, CurrencyCode, CustomFields, DataStructure, DataStructureListing, DimensionValue, GroupAttribution, ManagerAttribution, MetricValue, Page, ReportingRecord, StandardReportingFields, StatementWebhookBody, TableFieldValue, TableFields, TableRecord, V2Amount, V2Field, V2FieldListing, V2FieldProperty, V2Record, V2RecordPage } from './records.js';
