/**
 * What must compile: the types `compdata/client` gives, each compared exactly with what the
 * contract says (`Equal` is true only for identical types, so a wider or narrower type fails).
 */
import { createClient, ProblemError, type BulkItem, type CompdataClient, type Page, type ReportingRecord, type StatementWebhookBody, type V2Field, type V2FieldProperty } from 'compdata/client';
import type { components } from '../../../generated/api.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Compiles only when `T` is `true`. */
function same<T extends true>(): T | void {}

declare const client: CompdataClient;

export async function typedReportingRecords() {
  for await (const record of client.reporting.records<{ metrics: 'new_arr'; dimensions: 'region' }>()) {
    same<Equal<typeof record.new_arr, number | null>>();
    same<Equal<typeof record.new_arr_currency, string>>();
    same<Equal<typeof record.region, string[]>>();
    same<Equal<typeof record.id, string>>();
    same<Equal<typeof record.payment, number>>();
    same<Equal<typeof record.target, number | null>>();
    same<Equal<typeof record.user.email, string>>();
  }
  for await (const record of client.reporting.records<{ metrics: 'new_arr' | 'services_revenue'; dimensions: 'region' | 'segment' }>({ limit: 500 })) {
    same<Equal<typeof record.services_revenue, number | null>>();
    same<Equal<typeof record.services_revenue_currency, string>>();
    same<Equal<typeof record.segment, string[]>>();
  }
  for await (const record of client.reporting.records<{ dimensions: 'region' }>()) {
    same<Equal<typeof record.region, string[]>>();
  }
  for await (const page of client.reporting.pages<{ metrics: 'new_arr' }>({ offset: 2000, limit: 2000, signal: AbortSignal.timeout(1000) })) {
    same<Equal<typeof page.count, number>>();
    same<Equal<typeof page.next, string | undefined>>();
    same<Equal<(typeof page.data)[number], ReportingRecord<{ metrics: 'new_arr' }>>>();
  }
}

export async function untypedReportingRecords() {
  for await (const record of client.reporting.records()) {
    // Without names, the contract's own type: custom fields are the union of every kind.
    same<Equal<typeof record, components['schemas']['StatementReportingRecordModel']>>();
    same<Equal<typeof record.payment, number>>();
  }
}

export async function tableRecords() {
  for await (const record of client.tables.records<{ name: string; amount: number | null; amount_currency: string }>('deals', { limit: 10 })) {
    same<Equal<typeof record.id, string>>();
    same<Equal<typeof record.amount, number | null>>();
    same<Equal<typeof record.name, string>>();
  }
  for await (const record of client.tables.records('deals')) {
    same<Equal<typeof record, components['schemas']['DataTableRecord']>>();
  }
}

export async function readBacksAndBulk() {
  for await (const item of client.attributions.groups.records({ user: 'ada@example.com', group_dimension: 'region' })) {
    same<Equal<typeof item, components['schemas']['GroupAttributionResponseItem']>>();
    same<Equal<typeof item.end_date, string | null>>();
  }
  for await (const page of client.attributions.managers.pages({ user: 'ada@example.com', limit: 50 })) {
    same<Equal<typeof page, Page<components['schemas']['ManagerAttributionResponseItem']>>>();
    same<Equal<(typeof page.data)[number]['start_date'], string | null>>();
  }
  // The envelope the client derives is the contract's, for every paged operation.
  same<Equal<Page<components['schemas']['GroupAttributionResponseItem']>, components['schemas']['GroupAttributionPage']>>();
  // (The record listings' pages also have `sync_token`, the answer to `changed_since`, which the client does not send.)
  same<Equal<Page<components['schemas']['DataTableRecord']>, Omit<components['schemas']['DataTableRecordPage'], 'sync_token'>>>();

  const items: BulkItem[] = [
    { user: 'ada@example.com', group_dimension: 'region', group: 'EMEA', start_date: '2026-01' },
    { user: 'ada@example.com', group_dimension: 'region', group: 'APAC', start_date: '2026-07', end_date: null },
    { user: 'ada@example.com', manager: 'grace@example.com' },
    { user: 'ada@example.com', manager: 'grace@example.com', start_date: null, end_date: '2026-12' },
  ];
  const written = await client.attributions.bulkUpsert(items, { retry: true, signal: AbortSignal.timeout(5000) });
  same<Equal<typeof written.count, number>>();
  same<Equal<typeof written, components['schemas']['GroupsBulkSuccessModelResponse']>>();
  await client.attributions.bulkUpsertInChunks(items, { size: 100 });
}

export function problems(error: unknown) {
  if (error instanceof ProblemError) {
    same<Equal<typeof error.status, number>>();
    same<Equal<typeof error.detail, string>>();
    same<Equal<typeof error.requestId, string | undefined>>();
    same<Equal<(typeof error.errors)[number], { pointer: string; message: string }>>();
  }
}

export async function theUnderlyingClient() {
  const own = createClient({
    baseUrl: 'http://127.0.0.1:8080',
    apiKey: 'cdk_x',
    fetch: (request) => fetch(request),
    retry: { attempts: 3, budgetMs: 5000, backoffMs: 100, writes: false },
    signal: new AbortController().signal,
  });
  createClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'cdk_x', retry: false });
  const { data } = await own.api.GET('/healthz');
  type ReadServer = { name: string; in_rotation: boolean; reads: number; removals: number; failures: number; position?: string; lag_ms?: number; reason?: string };
  same<Equal<typeof data, { status: 'ok'; faults?: string; read_servers?: ReadServer[] } | undefined>>();
}

export async function v2Reads() {
  const listing = await client.v2.structures({ signal: AbortSignal.timeout(1000) });
  const statements = listing.data.find((structure) => structure.type === 'statement_reporting')!;
  same<Equal<typeof statements, components['schemas']['DataStructure']>>();
  same<Equal<typeof statements.type, 'statement_reporting' | 'record_reporting'>>();
  const fields = await client.v2.fields(statements.id);
  same<Equal<typeof fields, components['schemas']['V2FieldListing']>>();
  same<Equal<(typeof fields.fields)[number]['created_at'], null>>();
  const field: V2Field = fields.fields[0]!;
  same<Equal<typeof field.properties, Record<string, V2FieldProperty> | null>>();
  same<Equal<V2FieldProperty, { type: 'string' | 'number'; required: boolean }>>();
  for await (const record of client.v2.statements.records({ limit: 500, lastModifiedAfter: new Date(0), signal: AbortSignal.timeout(1000) })) {
    same<Equal<typeof record, components['schemas']['V2Record']>>();
    same<Equal<(typeof record)['standard.last_modified_at'], string>>();
    same<Equal<(typeof record)['standard.id'], string>>();
  }
  for await (const page of client.v2.statements.pages(statements.id, { startId: 'stl_0000100', lastModifiedBefore: '2026-11-27T08:00:00Z' })) {
    same<Equal<typeof page, components['schemas']['V2RecordPage']>>();
    same<Equal<typeof page.meta.next_url, string | null>>();
    same<Equal<typeof page.meta.next_start_id, string | null>>();
  }
  for await (const record of client.v2.records.records('34e95ea1-8cbc-866c-8332-8f647ce1e7b6', { limit: 10 })) {
    same<Equal<typeof record, components['schemas']['V2Record']>>();
    // A data table record's id is `standard.id` too, as a statement's.
    same<Equal<(typeof record)['standard.id'], string>>();
  }
}

/** A receiver's handler of the webhook call gets the body's type from the contract. */
export function webhookBody(body: StatementWebhookBody) {
  same<Equal<typeof body.type, 'statement.sent_to_payroll'>>();
  same<Equal<typeof body.data.statement.status, 'draft' | 'validated' | 'sent_to_payroll' | 'paid'>>();
  same<Equal<typeof body.data.statement.total_commission, components['schemas']['V2Amount']>>();
  same<Equal<(typeof body.data.records)[number], components['schemas']['V2Record']>>();
}
