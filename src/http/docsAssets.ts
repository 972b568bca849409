import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { repositoryPath } from './document.js';

/** A file of the API reference page, held in memory from start-up. */
interface DocsAsset {
  type: string;
  body: Buffer;
}

export interface DocsAssets {
  /** The page of `GET /docs`. */
  page: DocsAsset;
  /** What `GET /docs/{asset}` serves, by name. */
  byName: ReadonlyMap<string, DocsAsset>;
}

/**
 * The API reference (`GET /docs`): our page and its script, and Swagger UI's own files from the
 * `swagger-ui-dist` package, all served by this server (never a CDN), so the page works offline.
 * Swagger UI because its "Try it out" sends requests with an `X-API-Key` typed in "Authorize".
 */
function loadDocsAssets(): DocsAssets {
  const swaggerUi = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const ours = (name: string) => repositoryPath(`src/http/docsPage/${name}`);
  const file = (path: string, type: string): DocsAsset => ({ type, body: readFileSync(path) });
  return {
    page: file(ours('index.html'), 'text/html; charset=utf-8'),
    byName: new Map([
      ['reference.js', file(ours('reference.js'), 'text/javascript; charset=utf-8')],
      ['swagger-ui-bundle.js', file(join(swaggerUi, 'swagger-ui-bundle.js'), 'text/javascript; charset=utf-8')],
      ['swagger-ui.css', file(join(swaggerUi, 'swagger-ui.css'), 'text/css; charset=utf-8')],
      ['favicon-32x32.png', file(join(swaggerUi, 'favicon-32x32.png'), 'image/png')],
    ]),
  };
}

let assets: DocsAssets | undefined;

/** The files of the API reference, read once per process and shared by its servers. */
export const docsAssets = (): DocsAssets => (assets ??= loadDocsAssets());
