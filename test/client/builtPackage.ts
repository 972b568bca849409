import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository's root, for the tests that run what an integrator runs. */
export const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * `compdata/client` and `compdata/testing` resolve to `dist/` (package.json `exports`), built by `make build`, which
 * `make test` runs before the tests. A test of the package as shipped calls this first, so that
 * a stale build fails with the fix named rather than with old behaviour.
 */
export function assertClientBuilt(): void {
  const outputs: [string, string[]][] = [
    ...readdirSync(`${root}src/client`).map((file): [string, string[]] => {
      const base = `dist/src/client/${file.replace(/\.ts$/, '')}`;
      return [`src/client/${file}`, [`${base}.js`, `${base}.d.ts`]];
    }),
    ['generated/api.d.ts', ['dist/generated/api.d.ts']],
    ['generated/admin.d.ts', ['dist/generated/admin.d.ts']],
  ];
  for (const [source, built] of outputs) {
    for (const output of built) {
      assert.ok(existsSync(root + output), `${output} is missing: run 'make build'`);
      assert.ok(statSync(root + output).mtimeMs >= statSync(root + source).mtimeMs, `${output} is older than ${source}: run 'make build'`);
    }
  }
}
