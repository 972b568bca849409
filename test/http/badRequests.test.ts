import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { contractDocument } from '../../src/http/document.js';
import { MAX_LISTED_ERRORS } from '../../src/http/validationErrors.js';
import { buildFixture } from '../support/fixture.js';
import { shared, startTestServer, type CallOptions } from '../support/harness.js';

/**
 * A 400 names every offending part of the request (docs/rules.md#errors): each fault of the
 * query (in the contract's order of its parameters), the headers and the body at once, in that
 * order, up to {@link MAX_LISTED_ERRORS}.
 * Every answer is checked against the contract by the harness.
 */
const served = shared(async (scope) => {
  let key!: string;
  const server = await startTestServer(scope, {}, async (store) => {
    key = (await buildFixture(store, { tenant: 'acme' })).key;
  });
  return { server, key };
});

const badManager = { user: 'not an e-mail', manager: 7, start_date: '2026-13' };
const json = (raw: string): CallOptions => ({ raw, headers: { 'Content-Type': 'application/json' } });

const CASES: { name: string; method: string; path: string; options: CallOptions; pointers: string[] }[] = [
  {
    name: 'two bad query values and a bad header of a read',
    method: 'GET',
    path: '/v1/reporting?limit=-1&offset=-1',
    options: { headers: { 'Compdata-Consistency': 'soon' } },
    pointers: ['/query/offset', '/query/limit', '/header/Compdata-Consistency'],
  },
  {
    name: 'a managers item with a bad e-mail, a number for manager and a bad month',
    method: 'PUT',
    path: '/v1/users/managers/bulk',
    options: { json: { data: [badManager] } },
    pointers: ['/data/0/user', '/data/0/manager', '/data/0/start_date'],
  },
  {
    name: 'an unknown query parameter, a bad Idempotency-Key and an item without its manager',
    method: 'PUT',
    path: '/v1/users/managers/bulk?dry_run=1',
    options: { json: { data: [{ user: 'user1@acme.example' }] }, headers: { 'Idempotency-Key': 'two words' } },
    pointers: ['/query/dry_run', '/header/Idempotency-Key', '/data/0/manager'],
  },
  {
    name: 'a bad Idempotency-Key, a bad envelope, and a group item and a manager item, each broken',
    method: 'PUT',
    path: '/v1/users/groups/bulk',
    options: {
      json: { data: [{ user: 'user1@acme.example', group_dimension: 'region', group: 7, start_date: '2026-01' }, badManager], extra: true },
      headers: { 'Idempotency-Key': 'two words' },
    },
    pointers: ['/header/Idempotency-Key', '/extra', '/data/0/group', '/data/1/user', '/data/1/manager', '/data/1/start_date'],
  },
  {
    name: 'a body that is no JSON, an unknown query parameter and a bad Idempotency-Key',
    method: 'PUT',
    path: '/v1/users/groups/bulk?x=1',
    options: { ...json('{"data": ['), headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'two words' } },
    pointers: ['/query/x', '/header/Idempotency-Key', ''],
  },
];

describe('a 400 names every offending part of the request', () => {
  for (const { name, method, path, options, pointers } of CASES) {
    test(name, async () => {
      const { server, key } = await served();
      const response = await server.call(method, path, { key, ...options });
      assert.equal(response.status, 400, response.text);
      assert.deepEqual(
        response.body.errors.map((error: { pointer: string }) => error.pointer),
        pointers,
        response.text,
      );
    });
  }

  test(`a body with thousands of faults lists the first ${MAX_LISTED_ERRORS} and says so`, async () => {
    const { server, key } = await served();
    const started = performance.now();
    const response = await server.call('PUT', '/v1/users/managers/bulk', { key, json: { data: Array.from({ length: 5000 }, () => badManager) } });
    const elapsed = performance.now() - started;
    assert.equal(response.status, 400);
    assert.equal(response.body.errors.length, MAX_LISTED_ERRORS);
    assert.deepEqual(response.body.errors.slice(0, 4), [
      { pointer: '/data', message: 'must NOT have more than 200 items' },
      { pointer: '/data/0/user', message: 'must match format "email"' },
      { pointer: '/data/0/manager', message: 'must be string' },
      { pointer: '/data/0/start_date', message: 'must match pattern "^[0-9]{4}-(0[1-9]|1[0-2])$"' },
    ]);
    assert.match(response.body.detail, new RegExp(`first ${MAX_LISTED_ERRORS} `));
    assert.ok(elapsed < 2_000, `${elapsed} ms`);
  });

  test('the contract bounds the list as the server does', () => {
    const schemas = (contractDocument().definition.components as { schemas: Record<string, { allOf: { properties?: { errors?: { maxItems?: number } } }[] }> }).schemas;
    const errors = schemas.BadRequestProblem!.allOf.find((part) => part.properties?.errors)!.properties!.errors!;
    assert.equal(errors.maxItems, MAX_LISTED_ERRORS);
  });
});
