import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * The YAML parser, loaded only when YAML is read (the built server reads the contract as JSON
 * and would load it for nothing).
 */
const parse = (text: string, options: { intAsBigInt: boolean }): unknown =>
  (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(text, options);

/** A file of the repository, from `src/http` or from `dist/src/http`. */
export function repositoryPath(relative: string): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const root = here.includes('/dist/') ? '../../../' : '../../';
  return fileURLToPath(new URL(`${root}${relative}`, import.meta.url));
}

export interface LoadedDocument {
  /** The document as an object, for openapi-backend (integers as JS numbers). */
  definition: Record<string, unknown>;
  /**
   * The document as JSON text with every integer exact (`9223372036854775807`, not `...6000`), as served by a server whose public base is `base` (`--public-url`, else what
   * `next` is built from for the request): `servers` names that base, so that
   * "try it" tools and code generators call the server that served it.
   */
  servedJson(base: string): string;
}

/** What the served document says of its one server. */
const SERVED_SERVER_DESCRIPTION = 'This server, as it was reached (its public URL when one is configured)';

/**
 * A document of `openapi/` (`name`: `openapi` or `admin`): the YAML, or when this code runs from
 * the build, the JSON the build wrote of it in dist/openapi/ (scripts/contractJson.mjs; parsing
 * the YAML took a third of a second of each server's start).
 */
function documentPath(name: 'openapi' | 'admin'): string {
  const built = repositoryPath(`dist/openapi/${name}.json`);
  return import.meta.url.includes('/dist/') && existsSync(built) ? built : repositoryPath(`openapi/${name}.yaml`);
}

/**
 * The contract as JSON text, integers exact: what the build writes to dist/openapi/
 * (scripts/contractJson.mjs).
 */
export const contractJsonText = (yamlText: string): string => exactJson(parse(yamlText, { intAsBigInt: true }));

/**
 * Loads a document (YAML, or the JSON the build made of it). openapi-backend gets ordinary
 * numbers; the served text keeps every integer exact (integers beyond JavaScript's safe range
 * read as bigints), so that it keeps the offset bound exact. That text is made when it is first
 * served, not at start-up.
 */
export function loadDocument(path = documentPath('openapi')): LoadedDocument {
  const text = readFileSync(path, 'utf8');
  let exact: Record<string, unknown> | undefined = path.endsWith('.json') ? undefined : (parse(text, { intAsBigInt: true }) as Record<string, unknown>);
  const exactDocument = () => (exact ??= JSON.parse(text, exactIntegers) as Record<string, unknown>);
  // openapi-backend's copy: every integer a JS number. JSON.parse rounds a long integer of the
  // text to the number Number() makes of its bigint.
  const definition = (exact ? JSON.parse(JSON.stringify(exact, (_key, item: unknown) => (typeof item === 'bigint' ? Number(item) : item))) : JSON.parse(text)) as Record<
    string,
    unknown
  >;
  // The served text is the same but for `servers`, spliced in per request around a marker.
  let served: [string, string] | undefined;
  const servedJson = (base: string) => {
    const marker = '\u0000servers\u0000';
    const [before, after] = (served ??= exactJson({ ...exactDocument(), servers: marker }).split(JSON.stringify(marker)) as [string, string]);
    return `${before}${JSON.stringify([{ url: base, description: SERVED_SERVER_DESCRIPTION }])}${after}`;
  };
  return { definition, servedJson };
}

/** A JSON.parse reviver that reads an integer past 2^53 from its source text, as a bigint. */
function exactIntegers(_key: string, value: unknown, context?: { source?: string }): unknown {
  return typeof value === 'number' && !Number.isSafeInteger(value) && context?.source !== undefined && /^-?\d+$/.test(context.source) ? BigInt(context.source) : value;
}

function exactJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'bigint' ? (Number.isSafeInteger(Number(item)) ? Number(item) : `\u0000${item}\u0000`) : item,
  ).replace(/"\\u0000(-?\d+)\\u0000"/g, '$1');
}

let contract: LoadedDocument | undefined;

/** This build's contract, loaded once per process and shared by its servers (never to be changed). */
export const contractDocument = (): LoadedDocument => (contract ??= loadDocument());

let admin: LoadedDocument | undefined;

/** The administration API's document (openapi/admin.yaml), loaded once per process on first use. */
export const adminDocument = (): LoadedDocument => (admin ??= loadDocument(documentPath('admin')));
