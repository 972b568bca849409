import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** Where the contract lives, from `src/http` or from `dist/src/http`. */
function documentPath(): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const fromRoot = here.includes('/dist/') ? '../../../openapi/openapi.yaml' : '../../openapi/openapi.yaml';
  return fileURLToPath(new URL(fromRoot, import.meta.url));
}

export interface LoadedDocument {
  /** The document as an object, for openapi-backend (integers as JS numbers). */
  definition: Record<string, unknown>;
  /** The document as JSON text with every integer exact (`9223372036854775807`, not `...6000`). */
  json: string;
}

/**
 * Loads `openapi/openapi.yaml` once. Integers are read as bigints so that the served JSON keeps
 * the offset bound exact; openapi-backend gets ordinary numbers.
 */
export function loadDocument(path = documentPath()): LoadedDocument {
  const text = readFileSync(path, 'utf8');
  const exact = parse(text, { intAsBigInt: true }) as unknown;
  const json = JSON.stringify(exact, (_key, value: unknown) =>
    typeof value === 'bigint' ? (Number.isSafeInteger(Number(value)) ? Number(value) : `\u0000${value}\u0000`) : value,
  ).replace(/"\\u0000(-?\d+)\\u0000"/g, '$1');
  return { definition: parse(text) as Record<string, unknown>, json };
}
