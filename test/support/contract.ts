import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { loadDocument } from '../../src/http/document.js';

/**
 * Checks a response against the OpenAPI document: the status must be declared for the path and
 * method (or, for requests that match no operation, in `x-compdata-unmatched-responses`), the
 * content type must be the declared one, declared headers must be present, and the body must
 * validate against the declared schema (JSON Schema 2020-12, as OpenAPI 3.1 says).
 */
type Json = Record<string, unknown>;
const { definition } = loadDocument();
const DOC_ID = 'https://compdata.local/openapi.json';
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats.default(ajv);
ajv.addSchema({ ...definition, $id: DOC_ID });
const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

const paths = Object.keys(definition.paths as Json).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

function resolve(pointer: string): { value: Json; pointer: string } {
  let current: unknown = definition;
  for (const token of pointer.slice(2).split('/')) {
    current = (current as Json)[token.replace(/~1/g, '/').replace(/~0/g, '~')];
    assert.ok(current !== undefined, `the document has nothing at ${pointer}`);
  }
  const ref = (current as Json).$ref;
  if (typeof ref === 'string') return resolve(ref);
  return { value: current as Json, pointer };
}

const escapeToken = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

/** The pointer of the response object the document declares for this exchange. */
export function declaredResponse(method: string, path: string, status: number): string {
  const template = paths.find((p) => p.pattern.test(path))?.template;
  const operations = template ? (definition.paths as Json)[template] as Json : undefined;
  const verb = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
  const operation = operations?.[verb] as Json | undefined;
  if (!operation) {
    const unmatched = (definition.info as Json)['x-compdata-unmatched-responses'] as Json;
    assert.ok(String(status) in unmatched, `${method} ${path} matches no operation; ${status} is not declared for that`);
    return `#/info/x-compdata-unmatched-responses/${status}`;
  }
  const responses = operation.responses as Json;
  assert.ok(String(status) in responses, `${status} is not declared for ${verb.toUpperCase()} ${template}`);
  return `#/paths/${escapeToken(template!)}/${verb}/responses/${status}`;
}

/** Fails the test when the response breaks the contract; returns the parsed body. */
export function assertConforms(
  method: string,
  path: string,
  status: number,
  headers: Headers,
  text: string,
): unknown {
  const response = resolve(declaredResponse(method, path, status));
  for (const name of Object.keys((response.value.headers as Json | undefined) ?? {})) {
    assert.ok(headers.has(name), `${status} response lacks the declared ${name} header`);
  }
  const content = response.value.content as Json | undefined;
  if (!content || method.toUpperCase() === 'HEAD') return undefined;
  const contentType = (headers.get('content-type') ?? '').split(';')[0]!.trim();
  assert.ok(contentType in content, `content type ${contentType} is not declared (${Object.keys(content).join(', ')})`);
  const body = JSON.parse(text) as unknown;
  const schemaPointer = `${response.pointer}/content/${escapeToken(contentType)}/schema`;
  let validate = compiled.get(schemaPointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `${DOC_ID}${schemaPointer}` });
    compiled.set(schemaPointer, validate);
  }
  if (!validate(body)) {
    assert.fail(`${method} ${path} -> ${status}: body breaks the contract: ${ajv.errorsText(validate.errors)}\n${text.slice(0, 500)}`);
  }
  return body;
}
