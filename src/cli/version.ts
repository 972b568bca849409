import { existsSync, readFileSync } from 'node:fs';

/**
 * The version of this package, from its package.json: the nearest one above this module (two
 * folders up from the sources, three from the compiled `dist/`).
 */
export function packageVersion(): string {
  for (let folder = new URL('./', import.meta.url); folder.pathname !== '/'; folder = new URL('../', folder)) {
    const manifest = new URL('package.json', folder);
    if (existsSync(manifest)) return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
  }
  throw new Error('no package.json above the compdata modules');
}
