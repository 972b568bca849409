import type { Options } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ValidationContext, type AjvCustomizer } from 'openapi-backend';

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
 * The Ajv that compiles a validator of the request for openapi-backend, given the options it
 * chose (such as `coerceTypes` for the parameters): a {@link contractAjv} instead of the
 * draft-07 Ajv it offers. The parameters' Ajv reports every fault (`allErrors`: a query and
 * headers are short); the body's stops at the first, and a bad body's faults are found again, up
 * to a bound, by bodyProblems.ts. openapi-backend asks for a new Ajv for each validator of each
 * operation; one per set of options serves them all (each validator is an anonymous schema
 * compiled on its own), so that the 2020-12 meta-schema is compiled a few times per process,
 * not once per validator (that was most of a server's start-up: 1.7 s of CPU).
 *
 * `validateSchema: false`: the schemas are not checked against the 2020-12 meta-schema when a
 * server starts (a third of the validators' compile time), only by the tests
 * (test/http/apiSetup.test.ts checks every validator's schema against it) and by `make lint`.
 * A schema Ajv cannot compile (a bad pattern, an unknown keyword or type) still fails the start.
 */
export function requestAjv(chosen: Options, context: ValidationContext): Ajv2020 {
  const options = { ...chosen, ...(context === ValidationContext.Params ? { allErrors: true } : {}), validateSchema: false };
  const key = JSON.stringify(options);
  let ajv = sharedAjvs.get(key);
  if (!ajv) sharedAjvs.set(key, (ajv = contractAjv(options)));
  return ajv;
}

/** openapi-backend's `customizeAjv`: {@link requestAjv}. */
export const contractAjvForOpenApiBackend: AjvCustomizer = (_draft07, chosen, context) => requestAjv(chosen, context);

const sharedAjvs = new Map<string, Ajv2020>();
