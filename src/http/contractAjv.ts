import type { Options } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { AjvCustomizer } from 'openapi-backend';

/**
 * An Ajv for the contract's schemas: JSON Schema 2020-12, the dialect of OpenAPI 3.1 (`type:
 * [number, 'null']`, `const`, `examples`, `prefixItems`), with the formats of ajv-formats
 * (`email`, `date`, `int64`, ...). openapi-backend builds a draft-07 Ajv, which would ignore the
 * keywords 2020-12 added.
 */
export function contractAjv(options: Options): Ajv2020 {
  const ajv = new Ajv2020(options);
  addFormats.default(ajv);
  return ajv;
}

/**
 * openapi-backend's `customizeAjv`: every validator it compiles (the request's parameters, with
 * the options it chose, such as `coerceTypes` for them; the request body) is compiled by a
 * {@link contractAjv} instead of the draft-07 Ajv it offers.
 */
export const contractAjvForOpenApiBackend: AjvCustomizer = (_draft07, options) => contractAjv(options);
