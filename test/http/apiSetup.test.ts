import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ValidationContext } from 'openapi-backend';
import { createApi } from '../../src/http/api.js';
import { loadDocument } from '../../src/http/document.js';
import type { HandlerDeps } from '../../src/http/handlerTypes.js';

/** openapi-backend as createApi sets it up, over the contract or a changed copy of it; no request is served. */
const apiOver = async (definition = loadDocument().definition) =>
  (await createApi({ definition, deps: {} as HandlerDeps, authenticate: async () => undefined, readBody: async () => undefined, readPushBody: async () => undefined })).backend;

const api = await apiOver();
const bulk = (item: Record<string, unknown>) => ({
  method: 'put',
  path: '/v1/users/groups/bulk',
  headers: { 'content-type': 'application/json' },
  body: { data: [{ user: 'ada@example.com', group_dimension: 'region', group: 'NA', start_date: '2026-01', ...item }] },
});

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
    const definition = loadDocument().definition as { components: { parameters: { Cursor: { schema: Record<string, unknown> } } } };
    definition.components.parameters.Cursor.schema.pattern = '(';
    await assert.rejects(apiOver(definition), /Invalid regular expression/);
  });
});
