import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { parse } from 'yaml';
import { jsonText, plainText } from './jsonText.js';
import { mutatedValue, shared, validValue, type Dictionary, type Schema } from './schemaValues.js';

/**
 * Requests derived from a contract: each operation of `openapi/openapi.yaml` (or of
 * `openapi/admin.yaml`) (its method,
 * path template, parameters with their schemas, request body schema and security) gives a
 * generator of requests that are valid, or wrong in one or more ways: another method, odd
 * percent-encodings and path shapes, parameters wrong, repeated, missing or extra, a mutated or
 * non-JSON body, another content type, no key or a bad one. Stray requests to made-up paths
 * are mixed in.
 */
export interface Operation {
  method: string;
  template: string;
  parameters: { name: string; in: string; schema: Schema }[];
  body?: Schema;
  secured: boolean;
}

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Sent with Transfer-Encoding: chunked (no Content-Length). */
  chunked: boolean;
  /** The operation the request was derived from (absent for stray requests). */
  operation?: Operation;
}

/** What the generators may use beyond the contract: real keys and known values. */
export interface FuzzDictionary {
  /** The header that carries the credential: `X-API-Key` (default) or `Authorization`. */
  credentialHeader?: string;
  /** A credential that opens the API, as the header carries it. */
  validKey: string;
  /** Revoked keys, keys with a wrong secret, credentials of the other API. */
  badKeys: readonly string[];
  /** Values that exist (e-mails, dimension keys, table keys), by property or parameter name. */
  values: Dictionary;
  /** Upper bounds of integers, by property or parameter name, under the contract's own (sizes a run can afford). */
  integerCaps?: Readonly<Record<string, bigint>>;
}

const METHODS = ['GET', 'HEAD', 'PUT', 'POST', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];

/** Every operation of a contract (`openapi/<document>`), `$ref`s resolved, integers as bigints (exact int64 bounds). */
export function contractOperations(document: 'openapi.yaml' | 'admin.yaml' = 'openapi.yaml'): Operation[] {
  return operationsOf(new URL(`../../../openapi/${document}`, import.meta.url));
}

function operationsOf(file: URL): Operation[] {
  const document = parse(readFileSync(file, 'utf8'), { intAsBigInt: true }) as Schema;
  const resolved = dereference(document, document) as Schema;
  const operations: Operation[] = [];
  for (const [template, pathItem] of Object.entries(resolved.paths as Record<string, Schema>)) {
    const pathParameters = (pathItem.parameters ?? []) as Operation['parameters'];
    for (const [method, operation] of Object.entries(pathItem)) {
      if (!METHODS.includes(method.toUpperCase())) continue;
      const security = (operation.security ?? resolved.security ?? []) as unknown[];
      operations.push({
        method: method.toUpperCase(),
        template,
        parameters: [...pathParameters, ...((operation.parameters ?? []) as Operation['parameters'])],
        body: operation.requestBody?.content?.['application/json']?.schema as Schema | undefined,
        secured: security.some((requirement) => Object.keys(requirement as object).length > 0),
      });
    }
  }
  return operations;
}

function dereference(node: unknown, root: Schema): unknown {
  if (Array.isArray(node)) return node.map((item) => dereference(item, root));
  if (node === null || typeof node !== 'object') return node;
  const ref = (node as Schema).$ref;
  if (typeof ref === 'string') {
    const target = ref.slice(2).split('/').reduce((at: Schema, token) => at[token.replace(/~1/g, '/').replace(/~0/g, '~')] as Schema, root);
    return dereference(target, root);
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, dereference(value, root)]));
}

export function fuzzRequest(operations: readonly Operation[], dictionary: FuzzDictionary): fc.Arbitrary<FuzzRequest> {
  const derived = fc.oneof(...operations.map((operation) => requestFor(operation, dictionary)));
  return fc.oneof({ weight: 12, arbitrary: derived }, { weight: 1, arbitrary: strayRequest(dictionary) });
}

function requestFor(operation: Operation, dictionary: FuzzDictionary): fc.Arbitrary<FuzzRequest> {
  const parameterValue = ({ name, schema }: Operation['parameters'][number]) =>
    fc.oneof({ weight: 3, arbitrary: validValue(schema, dictionary.values, name, dictionary.integerCaps) }, { weight: 1, arbitrary: mutatedValue(schema, dictionary.values) }).map(plainText);
  const pathParameters = operation.parameters.filter((parameter) => parameter.in === 'path');
  const queryParameters = operation.parameters.filter((parameter) => parameter.in === 'query');
  const segments = fc.tuple(...pathParameters.map((parameter) => parameterValue(parameter).chain(encodings)));
  const query = fc.tuple(
    ...queryParameters.map((parameter) =>
      fc.option(fc.tuple(fc.constant(parameter.name), parameterValue(parameter).chain(encodings)).chain(queryForms), { freq: 2 }),
    ),
    oneIn(6, strayQueryParameter()),
  );
  return fc
    .record({
      method: fc.oneof({ weight: 10, arbitrary: fc.constant(operation.method) }, { weight: 1, arbitrary: otherMethod() }),
      path: fc.tuple(segments, query).map(([values, pairs]) => withQuery(fillTemplate(operation.template, pathParameters, values), pairs)),
      oddPath: oneIn(12, pathOddity()),
      headers: headersFor(operation.secured, dictionary),
      body: operation.body ? jsonBody(operation.body, dictionary) : oneIn(10, anyBody()),
      chunked: fc.boolean(),
    })
    .map(({ method, path, oddPath, headers, body, chunked }) => ({
      method,
      path: oddPath ? oddPath(path) : path,
      headers: body ? { ...headers, ...body.headers } : headers,
      ...(body && { body: body.text }),
      chunked,
      operation,
    }));
}

/** `arbitrary`'s value once in `n` draws, else null. */
function oneIn<T>(n: number, arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: n - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });
}

function fillTemplate(template: string, parameters: Operation['parameters'], values: string[]): string {
  return parameters.reduce((path, parameter, i) => path.replace(`{${parameter.name}}`, values[i]!), template);
}

function withQuery(path: string, pairs: (string | null)[]): string {
  const present = pairs.filter((pair): pair is string => pair !== null);
  return present.length === 0 ? path : `${path}?${present.join('&')}`;
}

/** UTF-8 percent-encoding (lone surrogates become U+FFFD, as they would on the wire). */
function percentEncoded(text: string): string {
  return encodeURIComponent(wellFormed(text));
}

function wellFormed(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/** Every byte of the text's UTF-8 percent-encoded, unreserved characters included. */
function overEncoded(text: string): string {
  return Buffer.from(text, 'utf8').toString('hex').replace(/../g, '%$&');
}

/** A text as it may appear in a URL: encoded properly, over-encoded, raw, or broken (computed when drawn). */
function encodings(text: string): fc.Arbitrary<string> {
  const rawSafe = (candidate: string) => /^[\x21-\x7e\x80-\xff]*$/.test(candidate) && !/[/?#%&=]/.test(candidate);
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(text).map(percentEncoded) },
    { weight: 1, arbitrary: fc.constant(text).map(overEncoded) },
    { weight: 1, arbitrary: fc.constant(text).map((raw) => (rawSafe(raw) ? raw : percentEncoded(raw))) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '%C0%AF', '%2F', '%FF').map((broken) => `${percentEncoded(text)}${broken}`) },
  );
}

/** `name=value`, repeated, with bracket syntax, or without a value. */
function queryForms([name, value]: [string, string]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(`${name}=${value}`) },
    { weight: 1, arbitrary: fc.constant(`${name}=${value}&${name}=${value}`) },
    { weight: 1, arbitrary: fc.constantFrom(`${name}[]=${value}`, `${name}[a]=${value}`, name, `${name}=`) },
  );
}

function strayQueryParameter(): fc.Arbitrary<string> {
  return fc.tuple(fc.string({ minLength: 1, maxLength: 10 }), fc.string({ maxLength: 10 })).map(([name, value]) => `${percentEncoded(name)}=${percentEncoded(value)}`);
}

function otherMethod(): fc.Arbitrary<string> {
  return fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...METHODS) }, { weight: 1, arbitrary: shared('method', () => fc.stringMatching(/^[A-Z]{1,10}$/)) });
}

/** A change to the shape of a path: case, slashes, dot segments, an encoded letter, more segments. */
function pathOddity(): fc.Arbitrary<(path: string) => string> {
  const splitQuery = (path: string): [string, string] => {
    const at = path.indexOf('?');
    return at < 0 ? [path, ''] : [path.slice(0, at), path.slice(at)];
  };
  const onPath = (change: (path: string) => string) => (full: string) => {
    const [path, query] = splitQuery(full);
    return `${change(path)}${query}`;
  };
  return fc.oneof(
    fc.constant(onPath((path) => path.toUpperCase())),
    fc.constant(onPath((path) => `${path}/`)),
    fc.constant(onPath((path) => path.replace('/', '//'))),
    fc.constant(onPath((path) => `${path}/../${path.split('/').pop()}`)),
    fc.constant(onPath((path) => path.replace('/v1/', '/v1/./'))),
    fc.constant(onPath((path) => path.replace(/[a-z]/, (letter) => `%${letter.charCodeAt(0).toString(16)}`))),
    fc.string({ maxLength: 12 }).map((segment) => onPath((path) => `${path}/${percentEncoded(segment)}`)),
  );
}

/** Header values node's client will send: tab, visible ASCII and Latin-1. */
function headerText(maxLength: number): fc.Arbitrary<string> {
  return shared(`header text 0-${maxLength}`, () => {
    const unit = fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff })).map((code) => String.fromCharCode(code));
    return fc.string({ unit, maxLength });
  });
}

function headersFor(secured: boolean, dictionary: FuzzDictionary): fc.Arbitrary<Record<string, string>> {
  const badKey = fc.oneof(fc.constantFrom(...dictionary.badKeys), headerText(60), headerText(20).map((text) => `cdk_${text}`));
  const key = fc.oneof(
    { weight: secured ? 16 : 2, arbitrary: fc.constant(dictionary.validKey) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: badKey },
  );
  const requestId = oneIn(8, fc.oneof(fc.uuid(), headerText(200)));
  const extra = oneIn(8, fc.tuple(shared('header name', () => fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/)), headerText(100)));
  const header = dictionary.credentialHeader ?? 'X-API-Key';
  return fc.record({ key, requestId, extra }).map(({ key, requestId, extra }) => ({
    ...(key !== undefined && { [header]: key }),
    ...(requestId !== null && { 'X-Request-Id': requestId }),
    ...(extra !== null && { [`X-Fuzz-${extra[0]}`]: extra[1] }),
  }));
}

interface Body {
  text: string;
  headers: Record<string, string>;
}

const CONTENT_TYPES = ['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', 'application/merge-patch+json', 'application', 'a/b/c', ''];

function contentType(): fc.Arbitrary<Record<string, string>> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON').map((type) => ({ 'Content-Type': type })) },
    { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES).map((type) => ({ 'Content-Type': type })) },
    { weight: 1, arbitrary: fc.constant({}) },
  );
}

function jsonBody(schema: Schema, dictionary: FuzzDictionary): fc.Arbitrary<Body> {
  const text = fc.oneof(
    { weight: 6, arbitrary: validValue(schema, dictionary.values, '', dictionary.integerCaps).map(jsonText) },
    { weight: 6, arbitrary: mutatedValue(schema, dictionary.values).map(jsonText) },
    { weight: 1, arbitrary: fc.constant(`{"data":[${'"x",'.repeat(300_000)}"x"]}`) },
    { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 50 }), validValue(schema, dictionary.values, '', dictionary.integerCaps).map((value) => jsonText(value).slice(0, -1))) },
  );
  return fc.tuple(text, contentType()).map(([body, headers]) => ({ text: body, headers }));
}

function anyBody(): fc.Arbitrary<Body> {
  return fc.tuple(fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value) ?? 'null'), contentType()).map(([text, headers]) => ({ text, headers }));
}

const STRAY_SEGMENTS = ['v1', 'V1', 'reporting', 'users', 'groups', 'bulk', 'managers', 'tables', 'records', 'openapi.json', 'healthz', '..', '.', '', '%2e%2e', '%2F', '*', 'deals'];

function strayRequest(dictionary: FuzzDictionary): fc.Arbitrary<FuzzRequest> {
  const segment = fc.oneof(fc.constantFrom(...STRAY_SEGMENTS), fc.string({ maxLength: 8 }).map(percentEncoded));
  return fc
    .record({ method: otherMethod(), segments: fc.array(segment, { minLength: 1, maxLength: 5 }), headers: headersFor(true, dictionary), body: oneIn(4, anyBody()), chunked: fc.boolean() })
    .map(({ method, segments, headers, body, chunked }) => ({
      method,
      path: `/${segments.join('/')}`,
      headers: body ? { ...headers, ...body.headers } : headers,
      ...(body && { body: body.text }),
      chunked,
    }));
}
