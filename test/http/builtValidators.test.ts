import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import type { OpenAPIBackend } from 'openapi-backend';
import { BUILT_VALIDATORS, validatorKey } from '../../src/http/builtValidators.js';
import { requestAjv, requestOptions } from '../../src/http/contractAjv.js';
import { contractBackend } from '../../src/http/contractBackend.js';
import { adminDocument, contractDocument, repositoryPath } from '../../src/http/document.js';

/**
 * The build's request validators (scripts/contractValidators.mjs, `make test` builds first): one
 * for every validator a server of this source compiles, found by its key, and answering each
 * request as the validator Ajv compiles at a start does, faults included.
 */
const built = createRequire(import.meta.url)(repositoryPath(BUILT_VALIDATORS)) as Record<string, ValidateFunction>;

/** Requests as openapi-backend hands them to a validator: none, empty parts, wrong types, an empty item. */
const REQUESTS: unknown[] = [
  {},
  { path: {}, query: {}, headers: {}, cookies: {} },
  { path: { table_id: 'x' }, query: { limit: 'many', offset: '-1', user: 'not an e-mail' }, headers: { 'x-api-key': '' }, cookies: {} },
  { requestBody: {} },
  { requestBody: { data: [{}] } },
  { requestBody: { data: [{ user: 'ada@example.com', start_date: '2026-13' }], name: 7 } },
];

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

async function backendOf(definition: Record<string, unknown>): Promise<OpenAPIBackend> {
  const paths = Object.values(definition.paths as Record<string, Record<string, { operationId?: string }>>);
  const operationIds = paths.flatMap((item) => METHODS.flatMap((method) => item[method]?.operationId ?? []));
  const schemes = Object.keys((definition.components as { securitySchemes?: object }).securitySchemes ?? {});
  return contractBackend(definition, operationIds, Object.fromEntries(schemes.map((scheme) => [scheme, async () => false])));
}

describe('the request validators the build compiled', () => {
  for (const [name, document] of [['openapi.yaml', contractDocument], ['admin.yaml', adminDocument]] as const) {
    it(`${name}: the build has every validator a server compiles, and each answers as the compiled one`, async () => {
      // A copy of the document: contractBackend keeps one backend per document object for the
      // process, and this one's security handlers refuse every caller (servers of later files
      // in the same run would get it).
      const backend = await backendOf(structuredClone(document().definition));
      let checked = 0;
      const checking = Object.create(backend.validator) as OpenAPIBackend['validator'];
      checking.getAjv = (context, options = {}) => {
        const chosen = { ...backend.validator.ajvOpts, ...options };
        const compile = (schema: object) => {
          const fromBuild = built[validatorKey(requestOptions(chosen, context), schema)];
          assert.ok(fromBuild, `the build has no validator of ${JSON.stringify(schema).slice(0, 200)}`);
          const compiled = requestAjv(chosen, context).compile(schema);
          for (const request of REQUESTS) {
            const copy = structuredClone(request);
            assert.equal(fromBuild(structuredClone(request)), compiled(copy), JSON.stringify(request));
            assert.deepEqual(fromBuild.errors ?? null, compiled.errors ?? null);
          }
          checked += 1;
          return compiled;
        };
        return { compile } as unknown as Ajv2020;
      };
      for (const operation of backend.getOperations()) checking.buildRequestValidatorsForOperation(operation);
      assert.ok(checked >= backend.getOperations().length, `${checked} validators checked`);
    });
  }
});
