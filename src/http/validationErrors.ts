import type { ErrorObject } from 'ajv';
import type { ParamProblem } from '../domain/paging.js';

/**
 * Turns openapi-backend's ajv errors into D5's `{pointer, message}` list. openapi-backend
 * validates one object `{query, path, header, requestBody}`, so `/requestBody/data/3` becomes
 * `/data/3` (a pointer into the body) while `/query/limit` stays as it is. Errors about a
 * missing or extra property point at that property.
 */
export function problemsFromAjv(errors: readonly ErrorObject[]): ParamProblem[] {
  const seen = new Set<string>();
  const result: ParamProblem[] = [];
  for (const error of errors) {
    const pointer = pointerOf(error);
    const message = messageOf(error);
    const key = `${pointer}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    result.push({ pointer, message });
  }
  return result;
}

function pointerOf(error: ErrorObject): string {
  let pointer = error.instancePath.startsWith('/requestBody') ? error.instancePath.slice('/requestBody'.length) : error.instancePath;
  const params = error.params as Record<string, unknown>;
  const property = error.keyword === 'required' ? params.missingProperty : error.keyword === 'additionalProperties' ? params.additionalProperty : undefined;
  if (typeof property === 'string') {
    pointer = pointer === '' && property === 'requestBody' ? '' : `${pointer}/${escapePointer(property)}`;
  }
  return pointer;
}

function messageOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && params.missingProperty === 'requestBody') return 'a JSON body is required';
  if (error.keyword === 'required') return 'is required';
  if (error.keyword === 'additionalProperties') return 'is not allowed';
  if (error.keyword === 'parse') return 'is not valid JSON';
  return error.message ?? 'is invalid';
}

function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}
