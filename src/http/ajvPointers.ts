import type { ErrorObject } from 'ajv';

/**
 * Where an Ajv error points in the request, as a JSON Pointer: its instance path less `prefix`
 * (`/requestBody` for openapi-backend's errors of the body), and for a missing or extra
 * property, that property.
 */
export function pointerOf(error: ErrorObject, prefix: string): string {
  let pointer = prefix && error.instancePath.startsWith(prefix) ? error.instancePath.slice(prefix.length) : error.instancePath;
  const params = error.params as Record<string, unknown>;
  const property =
    error.keyword === 'required' ? params.missingProperty : error.keyword === 'additionalProperties' ? params.additionalProperty : error.propertyName;
  if (typeof property === 'string') {
    pointer = pointer === '' && property === 'requestBody' ? '' : `${pointer}/${escapePointer(property)}`;
  }
  return pointer;
}

/** What an Ajv error says, in the words of docs/rules.md#errors. */
export function messageOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && params.missingProperty === 'requestBody') return 'a JSON body is required';
  if (error.keyword === 'required') return 'is required';
  if (error.keyword === 'additionalProperties') return 'is not allowed';
  if (error.keyword === 'parse') return 'is not valid JSON';
  if (error.propertyName !== undefined) return `is not a valid key: ${error.message ?? 'is invalid'}`;
  return error.message ?? 'is invalid';
}

/** A key refused by `propertyNames` is told once, by the error of the rule it broke (which names the key). */
export const toldElsewhere = (error: ErrorObject): boolean => error.keyword === 'propertyNames';

export function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
