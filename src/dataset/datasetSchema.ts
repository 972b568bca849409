import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { fieldPath, jsonPathOf, type DatasetElement, type ElementKind } from './datasetFormat.js';
import { DatasetError } from '../domain/datasetError.js';

/** Where the schema lives, from `src/dataset` or from `dist/src/dataset`. */
function schemaPath(): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const fromRoot = here.includes('/dist/') ? '../../../openapi/dataset.schema.json' : '../../openapi/dataset.schema.json';
  return fileURLToPath(new URL(fromRoot, import.meta.url));
}

/** The dataset schema as a parsed document (openapi/dataset.schema.json). */
export const DATASET_SCHEMA = JSON.parse(readFileSync(schemaPath(), 'utf8')) as { $id: string; [key: string]: unknown };

/** The `$defs` entry each kind of element is checked against. */
const DEFINITION_OF: Record<Exclude<ElementKind, 'format'>, string> = {
  metrics: 'metric',
  dimensions: 'dimension',
  users: 'user',
  group_attributions: 'groupAttribution',
  manager_attributions: 'managerAttribution',
  reporting: 'reportingRecord',
  statements: 'statement',
  tables: 'table',
  table_records: 'tableRecord',
};

/**
 * One validator per kind of element, compiled from the schema file on the first element checked:
 * a process that checks none (`serve` that imports nothing) neither compiles them nor has Ajv
 * check the schema against the 2020-12 meta-schema.
 */
let validators: Map<ElementKind, ValidateFunction> | undefined;

function compileValidators(): Map<ElementKind, ValidateFunction> {
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allowMatchingProperties: true, allowUnionTypes: true });
  addFormats.default(ajv, ['email']);
  ajv.addSchema(DATASET_SCHEMA);
  const compiled = new Map<ElementKind, ValidateFunction>();
  for (const [kind, definition] of Object.entries(DEFINITION_OF)) {
    compiled.set(kind as ElementKind, ajv.getSchema(`${DATASET_SCHEMA.$id}#/$defs/${definition}`)!);
  }
  compiled.set('format', ajv.getSchema(`${DATASET_SCHEMA.$id}#/properties/format`)!);
  return compiled;
}

/**
 * Checks one element against its definition in the schema; throws a {@link DatasetError} at the
 * JSON path of the first problem (`$.reporting[48211].payment: must be number`).
 */
export function assertValidElement(element: DatasetElement): void {
  const validate = (validators ??= compileValidators()).get(element.kind)!;
  if (validate(element.value)) return;
  const [error] = validate.errors as ErrorObject[];
  const base = jsonPathOf(element);
  throw new DatasetError(`${base}${relativePath(element.value, error!)}`, messageOf(error!));
}

/** The JSON path, inside the element, of what `error` is about (`.user.email`, `.region[2]`). */
function relativePath(value: unknown, error: ErrorObject): string {
  const tokens = error.instancePath === '' ? [] : error.instancePath.slice(1).split('/');
  if (error.keyword === 'additionalProperties') tokens.push(String(error.params.additionalProperty));
  if (error.keyword === 'unevaluatedProperties') tokens.push(String(error.params.unevaluatedProperty));
  if (error.keyword === 'required') tokens.push(String(error.params.missingProperty));
  let path = '';
  let current = value;
  for (const raw of tokens) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path = Array.isArray(current) ? `${path}[${token}]` : fieldPath(path, token);
    current = (current as Record<string, unknown> | undefined)?.[token];
  }
  return path;
}

function messageOf(error: ErrorObject): string {
  switch (error.keyword) {
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return 'is not a field of this element';
    case 'required':
      return 'is required';
    case 'const':
      return `must be ${JSON.stringify(error.params.allowedValue)}`;
    case 'enum':
      return `must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return error.message ?? 'is not valid';
  }
}
