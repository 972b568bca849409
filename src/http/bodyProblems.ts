import type { ErrorObject, ValidateFunction } from 'ajv';
import type { ParamProblem } from '../domain/paging.js';
import { escapePointer, isObject, messageOf, pointerOf, toldElsewhere } from './ajvPointers.js';
import { contractAjv } from './contractAjv.js';

/** An OpenAPI 3.1 schema object, dereferenced (openapi-backend resolves every `$ref`). */
export type JsonSchema = { [keyword: string]: unknown };

/**
 * The faults of a request body against its schema, every one until `enough` are found. The
 * body is checked in parts, so that the work ends there (a body of 10,000 bad items costs what
 * its first few do, where one Ajv pass with `allErrors` would walk them all): its envelope (the
 * schema less the `items` of its arrays: the properties, `minItems`, `maxItems`), then the
 * items of each array, one by one. The items of an array past its `maxItems` are not looked at
 * (the array is refused as too long), so that no bad body costs more than a good one.
 *
 * Items whose schema is a `oneOf` of object forms (the bulk items) are checked against the one
 * form their shape names: Ajv reports a failed `oneOf` with the errors of every branch, which
 * would point at fields of the form the client did not mean (`/data/0/manager is required` for
 * a broken group item). The form of an item is the one whose own properties (those no other
 * form has) it carries; an item that carries those of no form, or of several, or is no
 * object, is pointed at as a whole.
 */
export function bodyProblems(schema: JsonSchema, body: unknown, enough: number): ParamProblem[] {
  const { envelope, arrays } = checksOf(schema);
  const problems = envelope(body) ? [] : problemsOf(envelope.errors, '');
  if (!isObject(body)) return problems;
  for (const { name, check, maxItems } of arrays) {
    const items = body[name];
    if (!Array.isArray(items)) continue;
    const end = Math.min(items.length, maxItems);
    for (let index = 0; index < end && problems.length < enough; index += 1) {
      problems.push(...check(`/${escapePointer(name)}/${index}`, items[index]));
    }
  }
  return problems;
}

type ItemCheck = (pointer: string, item: unknown) => ParamProblem[];

interface BodyChecks {
  envelope: ValidateFunction;
  arrays: { name: string; check: ItemCheck; maxItems: number }[];
}

interface ItemForm {
  /** The properties only this form has. */
  own: string[];
  validate: ValidateFunction;
  /** `user, manager, start_date?` for messages. */
  summary: string;
}

const ajv = contractAjv({ strict: false, allErrors: true });
const checksCache = new WeakMap<JsonSchema, BodyChecks>();

/** The checks of a body schema, compiled on its first bad body. */
function checksOf(schema: JsonSchema): BodyChecks {
  let checks = checksCache.get(schema);
  if (checks) return checks;
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  const arrayNames = Object.entries(properties ?? {}).filter(([, property]) => isObject(property.items)).map(([name]) => name);
  const envelope = properties
    ? { ...schema, properties: Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, withoutItems(property)])) }
    : schema;
  checks = {
    envelope: ajv.compile(envelope),
    arrays: arrayNames.map((name) => {
      const { items, maxItems } = properties![name]!;
      return { name, check: itemCheck(items as JsonSchema), maxItems: typeof maxItems === 'number' ? maxItems : Infinity };
    }),
  };
  checksCache.set(schema, checks);
  return checks;
}

function withoutItems(schema: JsonSchema): JsonSchema {
  const { items: _items, ...rest } = schema;
  return rest;
}

function itemCheck(schema: JsonSchema): ItemCheck {
  if (Array.isArray(schema.oneOf)) {
    const forms = formsOf(schema.oneOf as JsonSchema[]);
    return (pointer, item) => itemProblems(pointer, item, forms);
  }
  const validate = ajv.compile(schema);
  return (pointer, item) => (validate(item) ? [] : problemsOf(validate.errors, pointer));
}

function formsOf(variants: JsonSchema[]): ItemForm[] {
  const propertiesOf = (schema: JsonSchema) => Object.keys((schema.properties ?? {}) as object);
  return variants.map((schema) => {
    const others = new Set(variants.filter((other) => other !== schema).flatMap(propertiesOf));
    const required = new Set((schema.required ?? []) as string[]);
    const summary = propertiesOf(schema).map((p) => (required.has(p) ? p : `${p}?`)).join(', ');
    const title = typeof schema.title === 'string' ? `${schema.title} ` : '';
    return { own: propertiesOf(schema).filter((p) => !others.has(p)), validate: ajv.compile(schema), summary: `${title}{${summary}}` };
  });
}

function itemProblems(pointer: string, item: unknown, forms: readonly ItemForm[]): ParamProblem[] {
  const matching = isObject(item) ? forms.filter((form) => form.own.some((p) => p in item)) : [];
  if (matching.length !== 1) {
    return [{ pointer, message: `must be one of: ${forms.map((form) => form.summary).join('; ')}` }];
  }
  const [form] = matching as [ItemForm];
  return form.validate(item) ? [] : problemsOf(form.validate.errors, pointer);
}

function problemsOf(errors: readonly ErrorObject[] | null | undefined, pointer: string): ParamProblem[] {
  return (errors ?? []).filter((error) => !toldElsewhere(error)).map((error) => ({ pointer: pointer + pointerOf(error, ''), message: messageOf(error) }));
}
