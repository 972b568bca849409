import type { ErrorObject } from 'ajv';
import type { ParamProblem } from '../domain/paging.js';
import { isObject, messageOf, pointerOf, toldElsewhere } from './ajvPointers.js';
import { bodyProblems, type JsonSchema } from './bodyProblems.js';
import { problems, type HttpProblem } from './problems.js';

/** The most errors one 400 lists (docs/rules.md#errors; `BadRequestProblem` in the contract). */
export const MAX_LISTED_ERRORS = 100;

/** The faults found in a request, as the 400's `errors`. */
export interface RequestFaults {
  errors: ParamProblem[];
  /** More were found than {@link MAX_LISTED_ERRORS}: the first are listed. */
  more: boolean;
}

/** What the 400 needs of an operation of the (dereferenced) contract. */
interface OperationShape {
  parameters?: unknown;
  requestBody?: unknown;
}

/** The body as it was read, or what made it unreadable (no JSON). */
export type SeenBody = { value: unknown } | { problems: readonly ParamProblem[] };

/**
 * Turns openapi-backend's Ajv errors into the `{pointer, message}` list of docs/rules.md#errors:
 * every fault of the path, the query and the headers (their Ajv has `allErrors`), in that order,
 * then those of the body, found again by {@link bodyProblems} (openapi-backend's Ajv of the body
 * stops at its first fault, so that a body of thousands of bad items is not walked whole).
 * `/query/limit` stays as it is, a header is named as the contract writes it
 * (`/header/Idempotency-Key`), and a pointer into the body drops openapi-backend's
 * `/requestBody`. At most {@link MAX_LISTED_ERRORS}; never none.
 */
export function requestProblems(errors: readonly ErrorObject[], operation: OperationShape, body?: SeenBody): RequestFaults {
  const headerName = declaredHeaders(operation.parameters);
  const told = errors.filter((error) => !toldElsewhere(error));
  const parameters = told.filter((error) => !ofBody(error)).map((error) => ({ pointer: headerName(pointerOf(error, '')), message: messageOf(error) }));
  const schema = jsonBodySchema(operation.requestBody);
  const inBody =
    body && 'problems' in body
      ? body.problems
      : body && schema
        ? bodyProblems(schema, body.value, MAX_LISTED_ERRORS + 1)
        : told.filter(ofBody).map((error) => ({ pointer: pointerOf(error, '/requestBody'), message: messageOf(error) }));
  let all = unique([...parameters, ...inBody]);
  // Never an empty list: should the second look at the body find nothing, openapi-backend's errors stand.
  if (all.length === 0) all = unique(errors.map((error) => ({ pointer: pointerOf(error, '/requestBody'), message: messageOf(error) })));
  return { errors: all.slice(0, MAX_LISTED_ERRORS), more: all.length > MAX_LISTED_ERRORS };
}

/** The 400 of `faults`; `detail` when it says all, the contract's words otherwise. */
export function validationProblem(faults: RequestFaults, detail?: string): HttpProblem {
  if (faults.more) {
    return problems.badRequest(faults.errors, `The request does not match the API contract; the first ${MAX_LISTED_ERRORS} of its errors are listed.`);
  }
  return problems.badRequest(faults.errors, detail);
}

/** An error of openapi-backend's about the body: in it, no body at all, or no JSON. */
function ofBody(error: ErrorObject): boolean {
  const params = error.params as Record<string, unknown>;
  if (error.instancePath === '/requestBody' || error.instancePath.startsWith('/requestBody/')) return true;
  return (error.keyword === 'required' && params.missingProperty === 'requestBody') || (error.keyword === 'parse' && error.instancePath === '');
}

/** `/header/idempotency-key` (openapi-backend lowercases headers) as the contract names it: `/header/Idempotency-Key`. */
function declaredHeaders(parameters: unknown): (pointer: string) => string {
  const names = new Map<string, string>();
  for (const parameter of Array.isArray(parameters) ? (parameters as unknown[]) : []) {
    if (isObject(parameter) && parameter.in === 'header' && typeof parameter.name === 'string') names.set(parameter.name.toLowerCase(), parameter.name);
  }
  return (pointer) => pointer.replace(/^\/header\/([^/]+)/, (whole, name: string) => (names.has(name) ? `/header/${names.get(name)}` : whole));
}

/** The JSON schema of an operation's request body (dereferenced by openapi-backend), if any. */
function jsonBodySchema(requestBody: unknown): JsonSchema | undefined {
  const content = (requestBody as { content?: Record<string, { schema?: JsonSchema }> } | undefined)?.content;
  return content?.['application/json']?.schema;
}

function unique(list: readonly ParamProblem[]): ParamProblem[] {
  const seen = new Set<string>();
  return list.filter(({ pointer, message }) => {
    const key = `${pointer}\u0000${message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
