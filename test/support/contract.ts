import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { adminDocument, contractDocument } from '../../src/http/document.js';

/**
 * Checks a response against the OpenAPI document: the status must be declared for the path and
 * method (or, for requests that match no operation, in `x-compdata-unmatched-responses`), the
 * content type must be the declared one, headers declared `required` must be present and every
 * declared header that is present must match its schema, and a JSON body must validate against
 * the declared schema (JSON Schema 2020-12, as OpenAPI 3.1 says).
 */
type Json = Record<string, unknown>;
type Check = (method: string, path: string, status: number, headers: Headers, text: string) => unknown;

/** The checker of responses against `definition` (its own Ajv, its schemas compiled once). */
function contractChecker(definition: Json, DOC_ID: string): Check {
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
  function declaredResponse(method: string, path: string, status: number): string {
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

  /** What a declared response requires, read from the document once per response (headers, content types). */
  interface DeclaredRules {
    pointer: string;
    headers: { name: string; required: boolean; integer: boolean; schemaPointer: string; ref: unknown }[];
    content: Json | undefined;
  }
  const rules = new Map<string, DeclaredRules>();

  function declaredRules(pointer: string): DeclaredRules {
    let found = rules.get(pointer);
    if (!found) {
      const response = resolve(pointer);
      const headers = Object.entries((response.value.headers as Json | undefined) ?? {}).map(([name, declared]) => {
        const at = `${response.pointer}/headers/${escapeToken(name)}`;
        const header = resolve(at).value;
        return { name, required: header.required === true, integer: (header.schema as Json).type === 'integer', schemaPointer: `${at}/schema`, ref: (declared as Json).$ref };
      });
      found = { pointer: response.pointer, headers, content: response.value.content as Json | undefined };
      rules.set(pointer, found);
    }
    return found;
  }

  /** Fails the test when the response breaks the contract; returns the parsed body. */
  function assertConforms(
    method: string,
    path: string,
    status: number,
    headers: Headers,
    text: string,
  ): unknown {
    const response = declaredRules(declaredResponse(method, path, status));
    for (const header of response.headers) {
      const value = headers.get(header.name);
      if (value === null) {
        assert.ok(!header.required, `${status} response lacks the required ${header.name} header`);
        continue;
      }
      const typed = header.integer ? Number(value) : value;
      const validate = compiledSchema(header.schemaPointer, header.ref);
      assert.ok(validate(typed), `${status} response: header ${header.name}: ${JSON.stringify(value)} breaks the contract: ${ajv.errorsText(validate.errors)}`);
    }
    const content = response.content;
    if (!content || method.toUpperCase() === 'HEAD') {
      assert.equal(text, '', `${status} response has a body the contract does not declare`);
      return undefined;
    }
    const contentType = (headers.get('content-type') ?? '').split(';')[0]!.trim();
    assert.ok(contentType in content, `content type ${contentType} is not declared (${Object.keys(content).join(', ')})`);
    if (!/^application\/(?:.+\+)?json$/.test(contentType)) return undefined;
    const body = JSON.parse(text) as unknown;
    const validate = compiledSchema(`${response.pointer}/content/${escapeToken(contentType)}/schema`);
    if (!validate(body)) {
      assert.fail(`${method} ${path} -> ${status}: body breaks the contract: ${ajv.errorsText(validate.errors)}\n${text.slice(0, 500)}`);
    }
    return body;
  }

  /** The schema at `pointer` (or at the header `ref` it was reached through), compiled once. */
  function compiledSchema(pointer: string, ref?: unknown): ReturnType<typeof ajv.compile> {
    const at = typeof ref === 'string' ? `${ref.slice(1)}/schema` : pointer.slice(1);
    let validate = compiled.get(at);
    if (!validate) {
      validate = ajv.compile({ $ref: `${DOC_ID}#${at}` });
      compiled.set(at, validate);
    }
    return validate;
  }
  return assertConforms;
}

/** Fails the test when the response breaks the public contract; returns the parsed body. */
export const assertConforms: Check = contractChecker(contractDocument().definition, 'https://compdata.local/openapi.json');

/** The same against the administration API's document (openapi/admin.yaml). */
export const assertConformsToAdmin: Check = contractChecker(adminDocument().definition, 'https://compdata.local/admin.json');

const webhookAjv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats.default(webhookAjv);
webhookAjv.addSchema({ ...contractDocument().definition, $id: 'https://compdata.local/webhooks.json' });
const WEBHOOK = 'https://compdata.local/webhooks.json#/webhooks/statementSentToPayroll/post';
const webhookBody = webhookAjv.compile({ $ref: `${WEBHOOK}/requestBody/content/application~1json/schema` });
const webhookParameters = (contractDocument().definition as any).webhooks.statementSentToPayroll.post.parameters as { name: string; required: boolean }[];

/** Fails the test when a webhook call's headers or body break the public contract's `webhooks` section; returns the parsed body. */
export function assertWebhookCall(headers: Readonly<Record<string, string | string[] | undefined>>, text: string): any {
  for (const [index, parameter] of webhookParameters.entries()) {
    const value = headers[parameter.name.toLowerCase()];
    if (value === undefined) {
      assert.ok(!parameter.required, `the call lacks the required ${parameter.name} header`);
      continue;
    }
    const validate = webhookAjv.compile({ $ref: `${WEBHOOK}/parameters/${index}/schema` });
    assert.ok(validate(value), `header ${parameter.name}: ${JSON.stringify(value)} breaks the contract: ${webhookAjv.errorsText(validate.errors)}`);
  }
  const body = JSON.parse(text) as unknown;
  assert.ok(webhookBody(body), `the call's body breaks the contract: ${webhookAjv.errorsText(webhookBody.errors)}\n${text.slice(0, 500)}`);
  return body;
}
