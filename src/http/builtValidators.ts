import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import { repositoryPath } from './document.js';

/**
 * The request validators the build compiled (scripts/contractValidators.mjs writes their code,
 * Ajv's standalone output, to {@link BUILT_VALIDATORS}): a server run from the build takes them
 * instead of having Ajv generate and compile the same code at each start. Each is found by the
 * text of its Ajv options and of its schema, so that a validator of another schema or other
 * options is never taken for it: what the build did not compile is compiled as before.
 */
export const BUILT_VALIDATORS = 'dist/openapi/validators.cjs';

/** What finds a validator: the options it is compiled with and its schema, as JSON text, hashed. */
export const validatorKey = (options: object, schema: unknown): string =>
  createHash('sha256').update(JSON.stringify([options, schema])).digest('base64url');

let built: Record<string, ValidateFunction> | undefined;

/** The build's validator of `schema` under `options`; none when this code runs from source or the build has none for them. */
export function builtValidator(options: object, schema: unknown): ValidateFunction | undefined {
  built ??= loadBuilt();
  return built[validatorKey(options, schema)];
}

/** From source (tests through tsx), the validators are always compiled: the build may be older than the source. */
function loadBuilt(): Record<string, ValidateFunction> {
  const path = repositoryPath(BUILT_VALIDATORS);
  if (!import.meta.url.includes('/dist/') || !existsSync(path)) return {};
  return createRequire(import.meta.url)(path) as Record<string, ValidateFunction>;
}
