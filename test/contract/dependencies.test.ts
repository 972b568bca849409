import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import semver from 'semver';

const json = (path: string) => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')) as Record<string, any>;

test('every dependency runs on the Node versions the README promises (npm ci does not warn about engines)', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const promised = /runs on Node (\d+) \((\d+\.\d+) or later\), (\d+) and (\d+)/.exec(readme);
  assert.ok(promised, 'the README states the Node versions');
  const lowest = [`${promised[2]}.0`, `${promised[3]}.0.0`, `${promised[4]}.0.0`];
  assert.equal(promised[2]!.split('.')[0], promised[1], 'the oldest release named is of the first line');
  const engines = json('package.json').engines.node as string;
  for (const version of lowest) assert.ok(semver.satisfies(version, engines), `package.json engines ${engines} excludes ${version}`);
  const lock = json('package-lock.json').packages as Record<string, { version?: string; optional?: boolean; engines?: { node?: string } | string[] }>;
  const refused = Object.entries(lock).flatMap(([path, { version, optional, engines: wanted }]) => {
    const range = Array.isArray(wanted) ? undefined : wanted?.node;
    if (path === '' || range === undefined) return [];
    // An optional package of another platform (a wasm32 binding, say) is not installed here: npm does not check it.
    if (optional && !existsSync(new URL(`../../${path}`, import.meta.url))) return [];
    return lowest.filter((node) => !semver.satisfies(node, range)).map((node) => `${path}@${version} wants node ${range}, not ${node}`);
  });
  assert.deepEqual(refused, []);
});

/** The packages a module's code loads (its `import type`s erased): the names of its bare specifiers. */
function packagesLoadedBy(source: string): string[] {
  const specifiers = [...source.matchAll(/^(?:import|export)\s+(?!type\s)(?:[^'";=`]*?\sfrom\s+)?'([^'.][^']*)'|\bimport\('([^'.][^']*)'\)/gm)].map((match) => match[1] ?? match[2]!);
  return specifiers.filter((specifier) => /^(@[\w.-]+\/)?[\w.-]+(\/[\w./-]*)?$/.test(specifier)).map((specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/'));
}

test("the service and its build load only the packages of `dependencies`: what `make demo` installs (npm ci --omit=dev) is enough to build and serve", () => {
  const pkg = json('package.json');
  const root = new URL('../../', import.meta.url);
  const buildScripts = [...(pkg.scripts.build as string).matchAll(/node (scripts\/\S+\.mjs)/g)].map((match) => match[1]!);
  assert.ok(buildScripts.includes('scripts/transpileSources.mjs') && buildScripts.includes('scripts/bundleCli.mjs'), `the build's scripts: ${buildScripts.join(', ')}`);
  const sources = readdirSync(new URL('src', root), { recursive: true, encoding: 'utf8' })
    // The browser's script of the reference page loads nothing; threadFromSource.mjs starts a
    // thread from the TypeScript sources through tsx, in development only (the build's threads
    // start from dist/).
    .filter((file) => /\.(ts|mjs|js)$/.test(file) && !file.endsWith('.d.ts') && !file.startsWith('http/docsPage/') && file !== 'store/threads/threadFromSource.mjs')
    .map((file) => `src/${file}`);
  const loaded = new Map<string, string>();
  for (const file of [...sources, ...buildScripts, 'bin/compdata.js']) {
    for (const name of packagesLoadedBy(readFileSync(new URL(file, root), 'utf8'))) loaded.set(name, file);
  }
  assert.ok(loaded.has('better-sqlite3') && loaded.has('esbuild'), 'the service and its build load packages');
  const outside = [...loaded].filter(([name]) => !(name in pkg.dependencies)).map(([name, file]) => `${name} (loaded by ${file})`);
  assert.deepEqual(outside, []);
});
