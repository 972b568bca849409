import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
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
