import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { OpenAPIRouter, type Context as ApiContext, type Document, type Request } from 'openapi-backend';
import { createApi } from '../../src/http/api.js';
import { ContractRouter } from '../../src/http/contractRouter.js';
import { contractDocument } from '../../src/http/document.js';
import type { HandlerDeps } from '../../src/http/handlerTypes.js';
import type { Principal } from '../../src/store/vocabulary/tenancy.js';

// The stock router of openapi-backend is the reference: ContractRouter must answer as it does.
// Copies for openapi-backend of the document parsed once per process.
const definition = structuredClone(contractDocument().definition) as unknown as Document;
const options = { definition, ignoreTrailingSlashes: false };
const stock = new OpenAPIRouter(options);
const router = new ContractRouter(options);

/** The operationId a router matches, or the message it throws in strict mode. */
function outcome(match: () => { operationId?: string } | undefined): string | undefined {
  try {
    return match()?.operationId;
  } catch (error) {
    return `threw ${(error as Error).message}`;
  }
}

const requests: [string, Request][] = [
  ['a literal path', { method: 'get', path: '/v1/reporting', headers: {} }],
  ['a literal path, upper-case method', { method: 'GET', path: '/v1/reporting', headers: {} }],
  ['a literal path with a query string in the path', { method: 'get', path: '/v1/reporting?limit=1', headers: {} }],
  ['a literal path without its leading slash', { method: 'get', path: 'v1/reporting', headers: {} }],
  ['a literal path, another method of it', { method: 'put', path: '/v1/users/groups/bulk', headers: {} }],
  ['a literal path, a method it does not have', { method: 'post', path: '/v1/reporting', headers: {} }],
  ['a literal path with a trailing slash', { method: 'get', path: '/v1/reporting/', headers: {} }],
  ['a templated path', { method: 'get', path: '/v1/tables/deals/records', headers: {} }],
  ['a templated path, a method it does not have', { method: 'delete', path: '/v1/tables/deals/records', headers: {} }],
  ['a templated path with characters a pattern would read', { method: 'get', path: '/v1/tables/a.b+(c)/records', headers: {} }],
  ['a templated path of v2', { method: 'get', path: '/v2/reporting/2fa94265-8b29-8997-887d-7958c0ab8234/statements', headers: {} }],
  ['another templated path of v2', { method: 'get', path: '/v2/reporting/any/records', headers: {} }],
  ['a templated path of v2 with a trailing slash', { method: 'get', path: '/v2/data-structures/any/fields/', headers: {} }],
  ['a templated path of v2, a method it does not have', { method: 'post', path: '/v2/reporting/any/statements', headers: {} }],
  ['a templated path with an empty parameter', { method: 'get', path: '/v2/reporting//statements', headers: {} }],
  ['a path one segment short of a template', { method: 'get', path: '/v2/reporting/any', headers: {} }],
  ['a path of no operation', { method: 'get', path: '/v1/nothing', headers: {} }],
  ['the root', { method: 'get', path: '/', headers: {} }],
  ['the document', { method: 'get', path: '/openapi.json', headers: {} }],
];

describe('ContractRouter answers as the stock router', () => {
  it('lists the same operations, and finds each by id', () => {
    assert.deepEqual(router.getOperations(), stock.getOperations());
    for (const operation of stock.getOperations()) {
      assert.deepEqual(router.getOperation(operation.operationId!), operation);
    }
    assert.equal(router.getOperation('noSuchOperation'), undefined);
  });

  for (const [name, request] of requests) {
    it(`matches ${name}`, () => {
      assert.equal(outcome(() => router.matchOperation(request)), outcome(() => stock.matchOperation(request)));
      assert.equal(outcome(() => router.matchOperation(request, true)), outcome(() => stock.matchOperation(request, true)));
    });
  }
});

describe('ContractRouter.parseRequest', () => {
  const request = (): Request => ({
    method: 'get',
    path: '/v1/tables/deals/records',
    query: 'limit=5&offset=10&extra[a]=1',
    headers: { 'X-API-Key': 'k', cookie: 'a=b' },
  });
  const operation = router.matchOperation(request(), true);

  it('gives what the stock router gives, with and without the operation', () => {
    const given = request();
    assert.deepEqual({ ...router.parseRequest(given, operation) }, { ...stock.parseRequest(request(), operation) });
    assert.deepEqual({ ...router.parseRequest(given, operation) }, { ...stock.parseRequest(request(), operation) });
    const lazy = router.parseRequest(request());
    const reference = stock.parseRequest(request());
    for (const field of ['method', 'path', 'requestBody', 'params', 'query', 'headers', 'cookies', 'body'] as const) {
      assert.deepEqual(lazy[field], reference[field], field);
    }
  });

  it('gives every later caller objects of its own (validation coerces them in place)', () => {
    const given = request();
    const first = router.parseRequest(given, operation);
    const second = router.parseRequest(given, operation);
    second.query.limit = 5;
    second.params.data_table_key = 'changed';
    second.headers['x-api-key'] = 'changed';
    const third = router.parseRequest(given, operation);
    assert.equal(first.query.limit, '5');
    assert.equal(third.query.limit, '5');
    assert.equal(third.params.data_table_key, 'deals');
    assert.equal(third.headers['x-api-key'], 'k');
  });

  it('parses again once a body is put on the request', () => {
    const given: Request = { method: 'put', path: '/v1/users/groups/bulk', headers: { 'content-type': 'application/json' } };
    const bulk = router.matchOperation(given, true);
    assert.equal(router.parseRequest(given, bulk).requestBody, undefined);
    given.body = { data: [] };
    assert.deepEqual(router.parseRequest(given, bulk).requestBody, { data: [] });
  });
});

/**
 * ContractRouter overrides internals of openapi-backend (see its comment): an upgrade must keep
 * the way `handleRequest` and the validator use the router, or these fail.
 */
describe('what ContractRouter relies on in openapi-backend', () => {
  it('is pinned to the one version it was checked against', () => {
    const wanted = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> }).dependencies['openapi-backend'];
    const installed = (createRequire(import.meta.url)('openapi-backend/package.json') as { version: string }).version;
    assert.match(wanted!, /^\d+\.\d+\.\d+$/, 'an exact version, not a range');
    assert.equal(installed, wanted);
  });

  it('a routed request is parsed once, through the router createApi installs, and the operations are never listed again', async (t) => {
    const principal = { tenantId: 1 } as unknown as Principal;
    const served = await createApi({ definition: structuredClone(contractDocument().definition), deps: { store: { servedBy: () => undefined, confirm: async () => true } } as unknown as HandlerDeps, authenticate: async () => principal, readBody: async () => undefined, readPushBody: async () => undefined });
    const api = served.backend;
    assert.ok(api.router instanceof ContractRouter);
    assert.equal(api.validator.router, api.router);
    let handled: ApiContext | undefined;
    api.register('getReportingRecords', (context: ApiContext) => void (handled = context));

    const calls: string[] = [];
    const named = (name: string, args: unknown[]) => (name.endsWith('parseRequest') && args[1] ? `${name} with its operation` : name);
    const router = api.router as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const name of ['parseRequest', 'matchOperation', 'getOperations', 'getOperation']) {
      const own = router[name]!.bind(router);
      router[name] = (...args) => (calls.push(named(`router.${name}`, args)), own(...args));
    }
    const stock = OpenAPIRouter.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const name of ['parseRequest', 'getOperations']) {
      const original = stock[name]!;
      stock[name] = function (this: unknown, ...args: unknown[]) {
        calls.push(named(`stock ${name}`, args));
        return original.apply(this, args);
      };
      t.after(() => void (stock[name] = original));
    }

    const headers = { 'x-api-key': 'k', host: 'api.example.test' };
    const ctx = { state: {}, path: '/v1/reporting', method: 'GET', get: (name: string) => headers[name.toLowerCase() as keyof typeof headers] ?? '' };
    const request = { method: 'get', path: '/v1/reporting', query: 'limit=0', headers };
    await served.handleRequest(request, ctx as unknown as Parameters<typeof served.handleRequest>[1]);

    assert.deepEqual(calls, [
      'router.parseRequest', // before routing: not parsed, as nothing reads it
      'router.matchOperation', // over the list and patterns built at start-up
      'router.parseRequest with its operation',
      'stock parseRequest with its operation', // the one parse
      'router.parseRequest with its operation', // the validator's: a copy of it
    ]);
    // The handler sees the request as parsed, not the copy the validator coerced.
    assert.equal(handled?.validation.valid, true);
    assert.deepEqual({ ...handled?.request.query }, { limit: '0' });
  });
});
