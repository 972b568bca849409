import assert from 'node:assert/strict';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describe, it } from 'node:test';
import Koa from 'koa';
import type { Context as ApiContext } from 'openapi-backend';
import type { HandlerDeps, OperationHandler } from '../../src/http/handlerTypes.js';
import { getGroupAttributions } from '../../src/http/handlers/getGroupAttributions.js';
import { getManagerAttributions } from '../../src/http/handlers/getManagerAttributions.js';
import { getReportingRecords } from '../../src/http/handlers/getReportingRecords.js';
import { getTableRecords } from '../../src/http/handlers/getTableRecords.js';

/**
 * Handlers take the query that openapi-backend parsed and the contract accepted
 * (`api.request.query`), not Koa's own parse of the request target: here the two differ, and
 * the store must be asked what the former says.
 */
const app = new Koa();

function koaContext(target: string) {
  const request = new IncomingMessage(new Socket());
  request.method = 'GET';
  request.url = target;
  request.headers = { host: 'api.example.test' };
  const ctx = app.createContext(request, new ServerResponse(request));
  ctx.state.principal = { tenantId: 1 };
  return ctx as Parameters<OperationHandler>[1];
}

/** Runs `handler` with `query` as openapi-backend's and another query in the request target; what the store was asked. */
async function storeAskedBy(handler: (deps: HandlerDeps) => OperationHandler, query: Record<string, string>, params = {}) {
  const asked: unknown[] = [];
  const store = {
    page: async (_principal: unknown, source: unknown, pageQuery: unknown) => {
      asked.push({ source, pageQuery });
      return { count: 0, json: Buffer.alloc(0), more: false, version: 'v' };
    },
    total: async (_principal: unknown, source: unknown) => (asked.push({ source, total: true }), { count: 0, version: 'v' }),
    changes: async (_principal: unknown, source: unknown, changeQuery: unknown) => {
      asked.push({ source, changeQuery });
      return { count: 0, json: Buffer.alloc(0), version: 'v', syncToken: 't' };
    },
  };
  const deps = { store, publicBase: { trustProxy: false } } as unknown as HandlerDeps;
  const api = { request: { query, params } } as unknown as ApiContext;
  await handler(deps)(api, koaContext('/any?limit=7&offset=1&user=koa%40example.com&cursor=koa&changed_since=koa'));
  return asked;
}

describe("handlers read openapi-backend's validated query", () => {
  it('GET /v1/reporting: paging, cursor and filters', async () => {
    const asked = await storeAskedBy(getReportingRecords, { offset: '9223372036854775807', limit: '2', cursor: 'c', user: 'ada@example.com', plan: 'P' });
    assert.deepEqual(asked, [
      { source: { kind: 'reporting', user: 'ada@example.com', plan: 'P' }, pageQuery: { offset: 9223372036854775807n, limit: 2, cursor: 'c' } },
    ]);
  });

  it('GET /v1/reporting: a count', async () => {
    assert.deepEqual(await storeAskedBy(getReportingRecords, { limit: '0', date_from: '2026-01-01' }), [
      { source: { kind: 'reporting', dateFrom: '2026-01-01' }, total: true },
    ]);
  });

  it('GET /v1/reporting and table records: changed_since', async () => {
    assert.deepEqual(await storeAskedBy(getReportingRecords, { changed_since: '0', limit: '3' }), [
      { source: { kind: 'reporting' }, changeQuery: { since: '0', limit: 3 } },
    ]);
    assert.deepEqual(await storeAskedBy(getTableRecords, { changed_since: '0' }, { data_table_key: 'deals' }), [
      { source: { kind: 'tableRecords', table: 'deals' }, changeQuery: { since: '0', limit: 2000 } },
    ]);
  });

  it('GET /v1/tables/{data_table_key}/records, /v1/users/groups, /v1/users/managers', async () => {
    assert.deepEqual(await storeAskedBy(getTableRecords, { offset: '5' }, { data_table_key: 'deals' }), [
      { source: { kind: 'tableRecords', table: 'deals' }, pageQuery: { offset: 5n, limit: 2000, cursor: undefined } },
    ]);
    assert.deepEqual(await storeAskedBy(getGroupAttributions, { user: 'ada@example.com', group_dimension: 'region', limit: '1' }), [
      { source: { kind: 'groupAttributions', user: 'ada@example.com', dimension: 'region' }, pageQuery: { offset: 0n, limit: 1, cursor: undefined } },
    ]);
    assert.deepEqual(await storeAskedBy(getManagerAttributions, {}), [
      { source: { kind: 'managerAttributions', user: undefined }, pageQuery: { offset: 0n, limit: 2000, cursor: undefined } },
    ]);
  });
});
