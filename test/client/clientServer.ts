import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { createClient, type ClientOptions, type CompdataClient } from '../../src/client/index.js';
import type { ServerOptions } from '../../src/http/server.js';
import { buildFixture } from '../support/fixture.js';
import { startTestServer, type TestServer } from '../support/harness.js';

/**
 * The client tests' one way to a real server: `startTestServer` over a `buildFixture` tenant
 * `acme` (users `user{i}@acme.example`, metric `new_arr`, dimensions `region` and `segment`,
 * table `deals`). Everything that knows how the harness prepares data is here.
 */
export interface ClientServer {
  server: TestServer;
  key: string;
  users: number;
  /** A client of this server with the tenant's key; `sent` records every request it sends. */
  client(options?: Partial<ClientOptions>): CompdataClient;
  sent: SentRequest[];
}

interface SentRequest {
  method: string;
  url: string;
  status: number | 'network error';
  requestId: string | null;
  retryAfter: string | null;
  at: number;
}

export async function startClientServer(
  t: TestContext,
  spec: { users?: number; records?: number; deals?: number; server?: Partial<ServerOptions> } = {},
): Promise<ClientServer> {
  let key!: string;
  const users = spec.users ?? 3;
  const server = await startTestServer(t, spec.server ?? {}, async (store) => {
    key = (await buildFixture(store, { tenant: 'acme', users, records: spec.records ?? 25, deals: spec.deals ?? 7 })).key;
  });
  const sent: SentRequest[] = [];
  const client = (options: Partial<ClientOptions> = {}) => {
    const send = options.fetch ?? ((request: Request) => fetch(request));
    return createClient({ baseUrl: server.url, apiKey: key, ...options, fetch: recording(send, sent) });
  };
  return { server, key, users, client, sent };
}

/** `send`, noting each request and its answer in `sent` (what went on the wire, and when). */
function recording(send: (request: Request) => Promise<Response>, sent: SentRequest[]) {
  return async (request: Request): Promise<Response> => {
    const note: SentRequest = { method: request.method, url: request.url, status: 'network error', requestId: null, retryAfter: null, at: Date.now() };
    sent.push(note);
    const response = await send(request);
    note.status = response.status;
    note.requestId = response.headers.get('X-Request-Id');
    note.retryAfter = response.headers.get('Retry-After');
    return response;
  };
}

type V1Page = { count: number; data: unknown[]; next?: string };
export type V2Page = { data: Record<string, unknown>[]; meta: { next_start_id: string | null; has_more: boolean; next_url: string | null } };

/**
 * Every page from `path` on, by raw requests (checked against the contract) following the next
 * page's URL: v1's `next`, or what `nextOf` reads (v2: `v2NextUrl`).
 */
export async function rawPages<P = V1Page>(
  server: TestServer,
  key: string,
  path: string,
  nextOf: (page: P) => string | null | undefined = (page) => (page as V1Page).next,
): Promise<P[]> {
  const pages: P[] = [];
  for (let next: string | undefined = path; next !== undefined; ) {
    const page = await server.call('GET', next, { key });
    assert.equal(page.status, 200, page.text);
    pages.push(page.body as P);
    next = nextOf(page.body as P)?.slice(server.url.length);
  }
  return pages;
}

/** Where a v2 page says the next one is. */
export const v2NextUrl = (page: V2Page) => page.meta.next_url;

/** Everything an async iterable yields. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

/**
 * Group and manager items for users `0..users-1` of the fixture tenant: two region periods and
 * one segment period each, and managers without cycles (user i under user 0 until 2025-12,
 * then under user i-1).
 */
export function attributionItems(users: number) {
  const email = (i: number) => `user${i}@acme.example`;
  const items = [];
  for (let i = 0; i < users; i += 1) {
    items.push(
      { user: email(i), group_dimension: 'region', group: `R${i % 3}`, start_date: '2026-01', end_date: '2026-06' },
      { user: email(i), group_dimension: 'region', group: `Q${i}`, start_date: '2026-07', end_date: null },
      { user: email(i), group_dimension: 'segment', group: `S${i % 2}`, start_date: '2025-01', end_date: '2025-12' },
    );
    if (i > 0) items.push({ user: email(i), manager: email(0), end_date: '2025-12' });
    if (i > 1) items.push({ user: email(i), manager: email(i - 1), start_date: '2026-01', end_date: null });
  }
  return items;
}
