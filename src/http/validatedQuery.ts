import type { Context as ApiContext } from 'openapi-backend';
import type { operations } from '../../generated/api.js';

/**
 * The query parameters of a request for operation `Op` as openapi-backend parsed them and the
 * contract accepted them: only the parameters `Op` declares, each given once and of its
 * declared form (anything else was a 400 before the handler ran). Each is the text the client
 * sent, not a coerced value: `offset` and `limit` are turned into exact numbers by
 * `parsePageRequest`, since a coerced `offset` would be rounded past 2^53 (see api.ts).
 */
export type ValidatedQuery<Op extends keyof operations> = {
  readonly [Name in keyof NonNullable<operations[Op]['parameters']['query']>]?: string;
};

export function validatedQuery<Op extends keyof operations>(api: ApiContext): ValidatedQuery<Op> {
  return api.request.query as ValidatedQuery<Op>;
}

/** The path parameters of a request for operation `Op`, as the route matched them (text, decoded). */
export type ValidatedPath<Op extends keyof operations> = {
  readonly [Name in keyof NonNullable<operations[Op]['parameters']['path']>]: string;
};

export function validatedPath<Op extends keyof operations>(api: ApiContext): ValidatedPath<Op> {
  return api.request.params as ValidatedPath<Op>;
}
