import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OpenAPIRouter, type Document, type Request } from 'openapi-backend';
import { ContractRouter } from '../../src/http/contractRouter.js';
import { loadDocument } from '../../src/http/document.js';

// The stock router of openapi-backend is the reference: ContractRouter must answer as it does.
const definition = loadDocument().definition as unknown as Document;
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
