import type { ErrorObject, ValidateFunction } from 'ajv';
import type { ParamProblem } from '../domain/paging.js';
import { contractAjv } from './contractAjv.js';

/**
 * Turns openapi-backend's ajv errors into the `{pointer, message}` list of
 * docs/rules.md#errors. openapi-backend validates one object
 * `{query, path, header, requestBody}`, so `/requestBody/data/3` becomes `/data/3` (a pointer
 * into the body) while `/query/limit` stays as it is. Errors about a missing or extra property
 * point at that property.
 *
 * Items of a body array whose schema is a `oneOf` of object forms (the bulk items) are
 * validated again, one by one, against the one form their shape names: ajv reports a failed
 * `oneOf` with the first error of every branch, which would point at fields of the form the
 * client did not mean (`/data/0/manager is required` for a broken group item). The form of an
 * item is the one whose own properties (those no other form has) it carries; an item that
 * carries those of no form, or of several, or is no object, is pointed at as a whole.
 */
export function problemsFromAjv(errors: readonly ErrorObject[], bodySchema?: JsonSchema, body?: unknown): ParamProblem[] {
  const itemArrays = bodySchema && isObject(body) ? oneOfItemArrays(bodySchema, body) : [];
  const revalidated = itemArrays.map(({ name }) => new RegExp(`^/requestBody/${escapeRegExp(escapePointer(name))}/\\d+(/|$)`));
  // A key refused by `propertyNames` is told once, by the error of the rule it broke (which names the key).
  const kept = errors.filter((error) => error.keyword !== 'propertyNames' && !revalidated.some((pattern) => pattern.test(error.instancePath)));
  const problems = kept.map((error) => ({ pointer: pointerOf(error, '/requestBody'), message: messageOf(error) }));
  for (const { name, items, forms } of itemArrays) {
    for (const [index, item] of items.entries()) problems.push(...itemProblems(`/${escapePointer(name)}/${index}`, item, forms));
  }
  // Never an empty list: should the second look find nothing, the first one's errors stand.
  if (problems.length === 0) return problemsFromAjv(errors);
  return unique(problems);
}

/** An OpenAPI 3.1 schema object, dereferenced (openapi-backend resolves every `$ref`). */
export type JsonSchema = { [keyword: string]: unknown };

interface ItemForm {
  /** The properties only this form has. */
  own: string[];
  validate: ValidateFunction;
  /** `user, manager, start_date?` for messages. */
  summary: string;
}

const ajv = contractAjv({ strict: false, allErrors: true });
const formsCache = new WeakMap<object, ItemForm[]>();

/** The body's array properties whose items are a `oneOf` of object forms, with their forms. */
function oneOfItemArrays(bodySchema: JsonSchema, body: Record<string, unknown>) {
  const properties = (bodySchema.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(properties).flatMap(([name, schema]) => {
    const items = body[name];
    const variants = (schema.items as JsonSchema | undefined)?.oneOf;
    if (!Array.isArray(items) || !Array.isArray(variants)) return [];
    return [{ name, items: items as unknown[], forms: formsOf(variants as JsonSchema[]) }];
  });
}

function formsOf(variants: JsonSchema[]): ItemForm[] {
  const cached = formsCache.get(variants);
  if (cached) return cached;
  const propertiesOf = (schema: JsonSchema) => Object.keys((schema.properties ?? {}) as object);
  const forms = variants.map((schema) => {
    const others = new Set(variants.filter((other) => other !== schema).flatMap(propertiesOf));
    const required = new Set((schema.required ?? []) as string[]);
    const summary = propertiesOf(schema).map((p) => (required.has(p) ? p : `${p}?`)).join(', ');
    const title = typeof schema.title === 'string' ? `${schema.title} ` : '';
    return { own: propertiesOf(schema).filter((p) => !others.has(p)), validate: ajv.compile(schema), summary: `${title}{${summary}}` };
  });
  formsCache.set(variants, forms);
  return forms;
}

function itemProblems(pointer: string, item: unknown, forms: readonly ItemForm[]): ParamProblem[] {
  const matching = isObject(item) ? forms.filter((form) => form.own.some((p) => p in item)) : [];
  if (matching.length !== 1) {
    return [{ pointer, message: `must be one of: ${forms.map((form) => form.summary).join('; ')}` }];
  }
  const [form] = matching as [ItemForm];
  if (form.validate(item)) return [];
  return (form.validate.errors ?? []).map((error) => ({ pointer: pointer + pointerOf(error, ''), message: messageOf(error) }));
}

function pointerOf(error: ErrorObject, prefix: string): string {
  let pointer = prefix && error.instancePath.startsWith(prefix) ? error.instancePath.slice(prefix.length) : error.instancePath;
  const params = error.params as Record<string, unknown>;
  const property =
    error.keyword === 'required' ? params.missingProperty : error.keyword === 'additionalProperties' ? params.additionalProperty : error.propertyName;
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
  if (error.propertyName !== undefined) return `is not a valid key: ${error.message ?? 'is invalid'}`;
  return error.message ?? 'is invalid';
}

function unique(problems: readonly ParamProblem[]): ParamProblem[] {
  const seen = new Set<string>();
  return problems.filter(({ pointer, message }) => {
    const key = `${pointer}\u0000${message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
