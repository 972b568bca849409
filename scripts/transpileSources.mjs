// @ts-check
/**
 * The first step of `npm run build`: every TypeScript module of src/ as JavaScript in dist/src/,
 * one file for one, with its source map, by esbuild. Types are erased, nothing is checked (tsc and
 * ESLint check them, in `make lint`) and nothing is bundled (bundleCli.mjs bundles the CLI). esbuild
 * is what runs the sources in the tests (tsx), and it is a dependency of the service: a clone
 * installed with `npm ci --omit=dev` builds without TypeScript's compiler.
 */
import { build } from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const sources = readdirSync(`${root}src`, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
  .map((file) => `${root}src/${file}`);

// A module removed from src/ leaves no file behind in dist/src/ (its declarations come after).
rmSync(`${root}dist/src`, { recursive: true, force: true });
await build({
  entryPoints: sources,
  outdir: `${root}dist/src`,
  outbase: `${root}src`,
  format: 'esm',
  platform: 'node',
  target: 'node22.12',
  sourcemap: true,
  logLevel: 'warning',
});
