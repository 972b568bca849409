import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { Members, RawJson } from './jsonText.js';

/**
 * Values from JSON Schemas of the contract (dereferenced, integers as bigints): `validValue`
 * gives values the schema accepts, `mutatedValue` values with one thing wrong somewhere
 * (a wrong type, a number out of range, a string too long or oddly encoded, a member missing,
 * extra or repeated, an item too many, deep nesting). Known strings, by the name of the
 * property or parameter they are for (`dictionary`: e-mails of existing users for `user`,
 * dimension keys for `group_dimension`, ...), are offered where the schema accepts them, so
 * that generated requests reach past the checks into the operations.
 */
export type Schema = Record<string, any>;
export type Dictionary = Readonly<Record<string, readonly string[]>>;
/** Upper bounds of integers by the name of their property or parameter, below the schema's own. */
export type IntegerCaps = Readonly<Record<string, bigint>>;

const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats.default(ajv);
const validators = new WeakMap<Schema, (value: unknown) => boolean>();

/** Whether `value` is valid under `schema` (compiled once per schema object). */
export function accepts(schema: Schema, value: unknown): boolean {
  let validate = validators.get(schema);
  if (!validate) {
    const compiled = ajv.compile(withoutBigints(schema) as object);
    validate = (candidate) => compiled(candidate);
    validators.set(schema, validate);
  }
  return validate(value);
}

const made = new Map<string, fc.Arbitrary<unknown>>();

/**
 * The arbitrary `make` builds, built once per `key` and shared: building a string arbitrary
 * costs fast-check more than drawing from it (each one tokenizes its default edge cases with
 * its unit), and the contract asks for the same few hundreds of times. An arbitrary holds no
 * state between draws.
 */
export function shared<T>(key: string, make: () => fc.Arbitrary<T>): fc.Arbitrary<T> {
  let arbitrary = made.get(key);
  if (!arbitrary) made.set(key, (arbitrary = make()));
  return arbitrary as fc.Arbitrary<T>;
}

/**
 * Any code point, lone surrogates included: fast-check's `binary` unit, drawn the same way but
 * without the reverse map of all of Unicode that `binary` builds first (seconds of CPU).
 */
const ANY_CODE_POINT = fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code));

const INT64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };
const SMALL_STRING = 40;
const SMALL_ARRAY = 6;

export function validValue(schema: Schema, dictionary: Dictionary, name = '', caps: IntegerCaps = {}): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const variants = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (variants) return fc.oneof(...variants.map((variant) => validValue(variant, dictionary, name, caps)));
  return fc.oneof(...typesOf(schema).map((type) => validOfType(type, schema, dictionary, name, caps)));
}

function typesOf(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties) return ['object'];
  if (schema.items) return ['array'];
  return ['null', 'boolean', 'number', 'string'];
}

function validOfType(type: string, schema: Schema, dictionary: Dictionary, name: string, caps: IntegerCaps): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return validInteger(schema, caps[name]);
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: num(schema.minimum), max: num(schema.maximum) });
    case 'string':
      return validString(schema, dictionary[name] ?? []);
    case 'array':
      return validArray(schema, dictionary, caps);
    default:
      return validObject(schema, dictionary, caps);
  }
}

const num = (bound: unknown) => (bound === undefined ? undefined : Number(bound));
const big = (bound: unknown, fallback: bigint) => (bound === undefined ? fallback : BigInt(bound as bigint));

function validInteger(schema: Schema, cap?: bigint): fc.Arbitrary<bigint> {
  const min = big(schema.minimum, INT64.min);
  const bound = big(schema.maximum, INT64.max);
  const max = cap !== undefined && cap >= min && cap < bound ? cap : bound;
  const edges = [min, max, min + 1n, max - 1n].filter((edge) => edge >= min && edge <= max);
  return fc.oneof(fc.constantFrom(...edges), fc.bigInt({ min, max }), fc.bigInt({ min, max: min + 50n > max ? max : min + 50n }));
}

function validString(schema: Schema, knownValues: readonly string[]): fc.Arbitrary<string> {
  const minLength = Number(schema.minLength ?? 0);
  const maxLength = Math.max(minLength, Math.min(Number(schema.maxLength ?? SMALL_STRING), SMALL_STRING));
  const generated = schema.pattern
    ? shared(`matching ${schema.pattern}`, () => fc.stringMatching(new RegExp(schema.pattern as string)))
    : schema.format === 'email'
      ? fc.emailAddress()
      : schema.format === 'date-time'
        ? dateTime()
        : shared(`string ${minLength}-${maxLength}`, () =>
            fc.oneof(...(['grapheme', ANY_CODE_POINT, 'grapheme-ascii'] as const).map((unit) => fc.string({ unit, minLength, maxLength }))),
          );
  const known = knownValues.filter((text) => accepts(schema, text));
  const fitting = generated.filter((text) => accepts(schema, text));
  return known.length === 0 ? fitting : fc.oneof({ weight: 1, arbitrary: fitting }, { weight: 3, arbitrary: fc.constantFrom(...known) });
}

/** RFC 3339 date-times of years 0000-9999, in UTC or with an offset, with or without fractions (random text never is one). */
function dateTime(): fc.Arbitrary<string> {
  const instant = fc.date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true });
  const offset = fc.constantFrom('Z', '+00:00', '+05:30', '-08:00');
  return fc.tuple(instant, offset, fc.boolean()).map(([date, zone, fraction]) => {
    const iso = date.toISOString();
    return `${fraction ? iso.slice(0, -1) : iso.slice(0, 19)}${zone}`;
  });
}

function validArray(schema: Schema, dictionary: Dictionary, caps: IntegerCaps = {}): fc.Arbitrary<unknown[]> {
  const item = validValue((schema.items ?? {}) as Schema, dictionary, '', caps);
  const minLength = Number(schema.minItems ?? 0);
  const maxItems = schema.maxItems === undefined ? undefined : Number(schema.maxItems);
  const small = fc.array(item, { minLength, maxLength: Math.max(minLength, Math.min(maxItems ?? SMALL_ARRAY, SMALL_ARRAY)), size: 'xsmall' });
  if (maxItems === undefined || maxItems > 1000) return small;
  const full = fc.array(item, { minLength: maxItems, maxLength: maxItems });
  return fc.oneof({ weight: 15, arbitrary: small }, { weight: 1, arbitrary: full });
}

function validObject(schema: Schema, dictionary: Dictionary, caps: IntegerCaps = {}): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const model = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, validValue(property, dictionary, name, caps)]));
  return fc.record(model, { requiredKeys: (schema.required ?? []) as string[] }) as fc.Arbitrary<Record<string, unknown>>;
}

/** A value with exactly one thing wrong, at the top or somewhere inside. */
export function mutatedValue(schema: Schema, dictionary: Dictionary): fc.Arbitrary<unknown> {
  const mutations: fc.Arbitrary<unknown>[] = [wrongType(schema)];
  const variants = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (variants) mutations.push(...variants.map((variant) => mutatedValue(variant, dictionary)));
  for (const type of variants ? [] : typesOf(schema)) {
    if (type === 'integer' || type === 'number') mutations.push(badNumber(schema));
    if (type === 'string') mutations.push(badString(schema));
    if (type === 'array') mutations.push(badArray(schema, dictionary));
    if (type === 'object' && schema.properties) mutations.push(badObject(schema, dictionary));
  }
  return fc.oneof(...mutations);
}

function wrongType(schema: Schema): fc.Arbitrary<unknown> {
  const others = [
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    shared('string 0-8', () => fc.string({ maxLength: 8 })),
    fc.constant([]),
    fc.constant({}),
    deepNesting(),
  ];
  return fc.oneof(...others).filter((value) => !accepts(schema, value));
}

/** `[[[...]]]` or `{"a":{"a":...}}`, up to 100,000 levels. */
function deepNesting(): fc.Arbitrary<RawJson> {
  return fc
    .tuple(fc.constantFrom(10, 1000, 100_000), fc.boolean())
    .map(([depth, arrays]) => new RawJson(arrays ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`));
}

function badNumber(schema: Schema): fc.Arbitrary<unknown> {
  const min = schema.minimum === undefined ? undefined : big(schema.minimum, 0n);
  const max = schema.maximum === undefined ? undefined : big(schema.maximum, 0n);
  const outside = [min === undefined ? undefined : min - 1n, max === undefined ? undefined : max + 1n, INT64.max * 4n, INT64.min * 4n];
  const raw = ['1e400', '-0', '0.5', '1.0', '1E3', '-1e-7', '123456789012345678901234567890', '0.0000000000000000000001'];
  return fc.oneof(
    fc.constantFrom(...outside.filter((value): value is bigint => value !== undefined)),
    fc.constantFrom(...raw).map((text) => new RawJson(text)),
    fc.double({ noDefaultInfinity: true }),
  );
}

function badString(schema: Schema): fc.Arbitrary<unknown> {
  const maxLength = schema.maxLength === undefined ? undefined : Number(schema.maxLength);
  const huge = fc.constantFrom(9_000, 40_000).chain((length) => fc.constantFrom('x', 'é', '😀', '\u0000').map((unit) => unit.repeat(length)));
  const options: fc.Arbitrary<unknown>[] = [
    huge,
    shared('binary 0-30', () => fc.string({ unit: ANY_CODE_POINT, maxLength: 30 })),
    fc.constantFrom('', ' ', '\uD800', '\uDFFF\uD800', '\u202E', '\u0000', '%00', '..', 'a\r\nb', 'Ω≈ç√', '\uFEFF'),
  ];
  if (maxLength !== undefined) options.push(fc.constant('y'.repeat(maxLength + 1)));
  if (schema.minLength) options.push(fc.constant('z'.repeat(Number(schema.minLength) - 1)));
  return fc.oneof(...options);
}

function badArray(schema: Schema, dictionary: Dictionary): fc.Arbitrary<unknown> {
  const itemSchema = (schema.items ?? {}) as Schema;
  const item = validValue(itemSchema, dictionary);
  const options: fc.Arbitrary<unknown>[] = [
    fc.tuple(fc.array(item, { maxLength: 3 }), mutatedValue(itemSchema, dictionary), fc.array(item, { maxLength: 3 })).map(([before, bad, after]) => [...before, bad, ...after]),
    fc.constant([]),
  ];
  if (schema.maxItems !== undefined) options.push(fc.array(item, { minLength: Number(schema.maxItems) + 1, maxLength: Number(schema.maxItems) + 1 }));
  return fc.oneof(...options);
}

function badObject(schema: Schema, dictionary: Dictionary): fc.Arbitrary<unknown> {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
  const valid = validObject(schema, dictionary);
  const oneBadMember = fc
    .tuple(valid, fc.constantFrom(...properties))
    .chain(([object, [name, property]]) => mutatedValue(property, dictionary).map((bad) => ({ ...object, [name]: bad })));
  const missing = fc.tuple(valid, fc.constantFrom(...((schema.required ?? ['-']) as string[]))).map(([object, name]) => {
    const { [name]: _dropped, ...rest } = object;
    return rest;
  });
  const extra = fc.tuple(valid, fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue({ maxDepth: 2 })).map(([object, name, value]) => ({ ...object, [name]: value }));
  const repeated = fc.tuple(valid, fc.constantFrom(...properties), fc.jsonValue({ maxDepth: 1 })).map(
    ([object, [name], value]) => new Members([...Object.entries(object), [name, value]]),
  );
  return fc.oneof(oneBadMember, missing, extra, repeated);
}

/** The schema with bigint bounds turned back into numbers, for ajv. */
function withoutBigints(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(withoutBigints);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, withoutBigints(member)]));
  }
  return value;
}
