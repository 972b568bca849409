import type { Options, ValidateFunction } from 'ajv';
import { Ajv2020, _ } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ValidationContext, type AjvCustomizer } from 'openapi-backend';
import { builtValidator, validatorKey } from './builtValidators.js';

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
  const options = requestOptions(chosen, context);
  const key = JSON.stringify(options);
  let ajv = sharedAjvs.get(key);
  if (!ajv) sharedAjvs.set(key, (ajv = contractAjv(recorder ? { ...options, code: { source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` } } : options)));
  return ajv;
}

/** The options of the Ajv that compiles a request validator for openapi-backend, given those it chose. */
export const requestOptions = (chosen: Options, context: ValidationContext): Options => ({
  ...chosen,
  ...(context === ValidationContext.Params ? { allErrors: true } : {}),
  validateSchema: false,
});

/**
 * What openapi-backend compiles a request validator with (its `getAjv`): the {@link requestAjv},
 * whose `compile` takes the build's validator of the schema when there is one (builtValidators.ts).
 */
export function requestCompiler(chosen: Options, context: ValidationContext): Ajv2020 {
  const options = requestOptions(chosen, context);
  const ajv = requestAjv(chosen, context);
  const compile = (schema: object) => builtValidator(options, schema) ?? compiled(ajv, options, schema);
  return Object.assign(Object.create(ajv) as Ajv2020, { compile });
}

function compiled(ajv: Ajv2020, options: Options, schema: object): ValidateFunction {
  const validate = ajv.compile(schema);
  recorder?.(validatorKey(options, schema), ajv, validate);
  return validate;
}

/** Told of each validator compiled, with the Ajv that compiled it (with its code's source kept): the build's way to write them out. */
type Recorder = (key: string, ajv: Ajv2020, validate: ValidateFunction) => void;
let recorder: Recorder | undefined;

/** Makes `record` told of every request validator compiled from now on, until it is undefined (scripts/contractValidators.mjs). */
export function recordValidators(record: Recorder | undefined): void {
  recorder = record;
}

/** openapi-backend's `customizeAjv`: {@link requestAjv}. */
export const contractAjvForOpenApiBackend: AjvCustomizer = (_draft07, chosen, context) => requestAjv(chosen, context);

const sharedAjvs = new Map<string, Ajv2020>();
