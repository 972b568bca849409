import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ValidationContext, type OpenAPIBackend } from 'openapi-backend';
import { createApi } from '../../src/http/api.js';
import { contractAjv } from '../../src/http/contractAjv.js';
import { contractDocument } from '../../src/http/document.js';
import type { HandlerDeps } from '../../src/http/handlerTypes.js';

/**
 * A copy of the contract's definition, for openapi-backend to set up and for a test to change:
 * the document is parsed once per process (contractDocument), not once per copy.
 */
const contractCopy = () => structuredClone(contractDocument().definition);

/** openapi-backend as createApi sets it up, over the contract or a changed copy of it; no request is served. */
const apiOver = async (definition = contractCopy()) =>
  (await createApi({ definition, deps: {} as HandlerDeps, authenticate: async () => undefined, readBody: async () => undefined, readPushBody: async () => undefined })).backend;

const api = await apiOver();
const bulk = (item: Record<string, unknown>) => ({
  method: 'put',
  path: '/v1/users/groups/bulk',
  headers: { 'content-type': 'application/json' },
  body: { data: [{ user: 'ada@example.com', group_dimension: 'region', group: 'NA', start_date: '2026-01', ...item }] },
});

/**
 * Compiles every request validator of `backend` again, each schema checked against the 2020-12
 * meta-schema first (which a server's start skips: contractAjv.ts); throws on the first invalid one.
 */
function checkRequestSchemas(backend: OpenAPIBackend): void {
  const ajvs = new Map<string, Ajv2020>();
  const checking = Object.create(backend.validator) as OpenAPIBackend['validator'];
  checking.getAjv = (context, options = {}) => {
    const chosen = { ...backend.validator.ajvOpts, ...options, ...(context === ValidationContext.Params ? { allErrors: true } : {}) };
    const key = JSON.stringify(chosen);
    if (!ajvs.has(key)) ajvs.set(key, contractAjv(chosen));
    return ajvs.get(key)!;
  };
  for (const operation of backend.getOperations()) checking.buildRequestValidatorsForOperation(operation);
}

describe('openapi-backend as createApi sets it up', () => {
  it('validates requests as JSON Schema 2020-12, the dialect of OpenAPI 3.1', () => {
    for (const context of [ValidationContext.Params, ValidationContext.RequestBody]) {
      const ajv = api.validator.getAjv(context, context === ValidationContext.Params ? { coerceTypes: true } : {});
      assert.ok(ajv instanceof Ajv2020, context);
      // A keyword of 2020-12 only: a draft-07 Ajv ignores it (and accepts).
      assert.equal(ajv.validate({ prefixItems: [{ type: 'integer' }] }, ['one']), false, context);
    }
  });

  it("checks the contract's 3.1 schemas: a type list with 'null', a pattern beside it", () => {
    assert.equal(api.validateRequest(bulk({ end_date: null }), 'upsertGroupsBulk').valid, true);
    assert.equal(api.validateRequest(bulk({ end_date: '2026-12' }), 'upsertGroupsBulk').valid, true);
    const errors = (item: Record<string, unknown>) =>
      api.validateRequest(bulk(item), 'upsertGroupsBulk').errors?.map(({ instancePath, message }) => `${instancePath} ${message}`);
    assert.ok(errors({ end_date: 5 })?.includes('/requestBody/data/0/end_date must be string,null'), String(errors({ end_date: 5 })));
    assert.ok(errors({ end_date: '2026-13' })?.some((error) => error.startsWith('/requestBody/data/0/end_date must match pattern')));
  });

  it('has every request validator compiled at start-up, and no response validator (the server never checks its answers)', () => {
    const operationIds = api.getOperations().map((operation) => operation.operationId).sort();
    assert.deepEqual(Object.keys(api.validator.requestValidators).sort(), operationIds);
    assert.deepEqual(Object.keys(api.validator.responseValidators), []);
  });

  it('fails at start-up, not at the first request, on a request schema Ajv cannot compile', async () => {
    const definition = contractCopy() as { components: { parameters: { Cursor: { schema: Record<string, unknown> } } } };
    definition.components.parameters.Cursor.schema.pattern = '(';
    await assert.rejects(apiOver(definition), /Invalid regular expression/);
  });

  it("has every request validator's schema valid JSON Schema 2020-12 (checked here: a server's start does not)", async () => {
    checkRequestSchemas(api);
    const definition = contractCopy() as { components: { parameters: { Cursor: { schema: Record<string, unknown> } } } };
    definition.components.parameters.Cursor.schema.maxLength = -1; // compiles, but is no length
    const faulty = await apiOver(definition);
    assert.throws(() => checkRequestSchemas(faulty), /schema is invalid: data\/properties\/query\/properties\/cursor\/maxLength must be >= 0/);
  });
});
