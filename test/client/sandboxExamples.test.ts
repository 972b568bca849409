import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporaryDirectory } from '../cli/cliProcess.js';
import { exchange } from '../support/harness.js';
import { startServe } from '../support/serveProcess.js';
import { databaseFor } from '../support/testDatabases.js';
import { assertClientBuilt, root } from './builtPackage.js';

const TOKEN = 'examples-admin-token-0123456789';

/**
 * The two example test files of `compdata/testing`, run as a user runs them (their own
 * processes, the package from the build, the server and token from COMPDATA_URL and
 * COMPDATA_ADMIN_TOKEN), one after the other against one `compdata serve` with an
 * administration token over a fresh SQLite database.
 */
const RUNNERS = {
  'node:test': [process.execPath, '--import', 'tsx', '--test', '--test-reporter=spec', 'examples/sandboxNodeTest.test.ts'],
  vitest: [process.execPath, 'node_modules/vitest/vitest.mjs', 'run', 'examples/sandboxVitest.test.ts'],
} as const;

interface Run {
  code: number | null;
  output: string;
}

function run([command, ...args]: readonly string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    const options = { cwd: root, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env }, timeout: 120_000 };
    execFile(command!, args, options, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, output: `${stdout}${stderr}` });
    });
  });
}

test('the examples of compdata/testing pass against compdata serve, and fail when the server refuses them', { timeout: 300_000 }, async (t) => {
  assertClientBuilt();
  const tokenPath = join(temporaryDirectory(t), 'admin.token');
  writeFileSync(tokenPath, `${TOKEN}\n`, { mode: 0o600 });
  const server = await startServe(t, await databaseFor(t), ['--admin-token-file', tokenPath]);
  const env = { COMPDATA_URL: server.url, COMPDATA_ADMIN_TOKEN: TOKEN };

  for (const [runner, command] of Object.entries(RUNNERS)) {
    await t.test(`${runner}: every test of the example passes`, async () => {
      const { code, output } = await run(command, env);
      assert.equal(code, 0, output);
      assert.match(output, runner === 'vitest' ? /Tests\s+3 passed \(3\)/ : /ℹ pass 3\nℹ fail 0/);
    });
  }
  // The runs can fail: with a wrong token no sandbox is made, and each runner exits non-zero.
  for (const [runner, command] of Object.entries(RUNNERS)) {
    await t.test(`${runner}: a refused sandbox fails the run`, async () => {
      const { code, output } = await run(command, { ...env, COMPDATA_ADMIN_TOKEN: `${TOKEN}x` });
      assert.notEqual(code, 0, output);
      assert.match(output, /401 Unauthorized/);
    });
  }
  // Every example disposed of its sandbox: none is left on the server.
  const tenants = await exchange(server.url, 'GET', '/admin/v1/tenants', { bearer: TOKEN });
  assert.deepEqual([tenants.status, tenants.body], [200, { count: 0, data: [] }]);
});
