import type { operations } from '../../generated/api.js';
import type { LimitBounds } from '../domain/paging.js';
import { contractDocument } from './document.js';

type QueryOf<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;

/** The operations of the contract that take a `limit`: every paged read. */
type PagedOperation = {
  [Op in keyof operations]: [QueryOf<Op>] extends [never] ? never : 'limit' extends keyof QueryOf<Op> ? Op : never;
}[keyof operations];

/** The bounds of `limit` of each paged read, by operationId. */
type PageLimits = Readonly<Record<PagedOperation, LimitBounds>>;

type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

let contractLimits: PageLimits | undefined;

/**
 * The bounds of each paged read's `limit` in this build's contract, the document the requests
 * are validated against: read once per process, when the first server builds its handlers.
 */
export const contractPageLimits = (): PageLimits => (contractLimits ??= pageLimits(contractDocument().definition));

/**
 * The bounds of `limit` of every operation of `definition` that takes one, as its schema states
 * them (`minimum`, `maximum`, `default`); a `limit` that lacks one of them is an error.
 */
export function pageLimits(definition: Json): PageLimits {
  const limits: Record<string, LimitBounds> = {};
  for (const pathItem of Object.values(definition.paths as Json) as Json[]) {
    for (const method of METHODS) {
      const operation = pathItem[method] as Json | undefined;
      const parameters = [...((operation?.parameters ?? []) as unknown[]), ...((pathItem.parameters ?? []) as unknown[])];
      const limit = parameters.map((parameter) => resolved(definition, parameter)).find((p) => p.name === 'limit' && p.in === 'query');
      if (operation && limit) limits[operation.operationId as string] = boundsOf(definition, operation.operationId as string, limit);
    }
  }
  return limits as PageLimits;
}

function boundsOf(definition: Json, operationId: string, parameter: Json): LimitBounds {
  const schema = resolved(definition, parameter.schema);
  const bound = (name: keyof LimitBounds): number => {
    const value = schema[name];
    if (!Number.isSafeInteger(value)) throw new Error(`The contract's limit of ${operationId} has no integer ${name}.`);
    return value as number;
  };
  return { minimum: bound('minimum'), maximum: bound('maximum'), default: bound('default') };
}

/** `value`, or what its local `$ref` (`#/components/...`) points to, when it is a reference. */
function resolved(definition: Json, value: unknown): Json {
  const ref = (value as Json | undefined)?.$ref;
  if (typeof ref !== 'string') return (value ?? {}) as Json;
  const target = ref.slice(2).split('/').reduce<unknown>((node, token) => (node as Json | undefined)?.[token.replace(/~1/g, '/').replace(/~0/g, '~')], definition);
  return resolved(definition, target);
}
