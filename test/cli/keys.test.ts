import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { withOtherStore } from '../support/harness.js';
import { runCli, runInProcess, type CliResult } from './cliProcess.js';
import { databaseFor } from '../support/testDatabases.js';

const KEY_LINE = /^cdk_([0-9a-f]{12})_[A-Za-z0-9_-]{43}$/;

/**
 * The commands run in this process (what they do is the subject); the first test runs them as
 * the `compdata` binary.
 */
type Run = (args: readonly string[]) => Promise<CliResult>;

async function createKey(path: string, tenant: string, ...more: string[]): Promise<{ id: string; key: string }> {
  return createKeyBy(runInProcess, path, tenant, ...more);
}

async function createKeyBy(run: Run, path: string, tenant: string, ...more: string[]): Promise<{ id: string; key: string }> {
  const result = await run(['keys', 'create', '--db', path, '--tenant', tenant, ...more]);
  assert.equal(result.code, 0, result.stderr);
  const key = result.stdout.trimEnd().split('\n').at(-1)!;
  const match = KEY_LINE.exec(key);
  assert.ok(match, `last line is not a key: ${key}`);
  return { id: match[1]!, key };
}

/** A new database file (keys go into a database that `seed` or `import` made). */
async function listKeys(path: string, ...more: string[]) {
  return listKeysBy(runInProcess, path, ...more);
}

async function listKeysBy(run: Run, path: string, ...more: string[]) {
  const result = await run(['keys', 'list', '--db', path, '--json', ...more]);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as { id: string; tenant: string; created_at: string; state: string; scope: string }[];
}

async function authenticates(path: string, key: string): Promise<boolean> {
  return (await withOtherStore(path, (store) => store.authenticate(key))) !== undefined;
}

describe('compdata keys', { concurrency: true }, () => {
  test('create prints a working key as the last line, creating the tenant when missing', async (t) => {
    const path = await databaseFor(t);
    const { id, key } = await createKeyBy(runCli, path, 'acme');
    assert.ok(await authenticates(path, key));
    const keys = await listKeysBy(runCli, path);
    assert.deepEqual(
      keys.map(({ id, tenant, state }) => ({ id, tenant, state })),
      [{ id, tenant: 'acme', state: 'active' }],
    );
    assert.ok(!Number.isNaN(Date.parse(keys[0]!.created_at)));
  });

  test('list shows ids, tenants and states in aligned columns, never a key', async (t) => {
    const path = await databaseFor(t);
    const acme = await createKey(path, 'acme');
    const globex = await createKey(path, 'globex corp');
    const table = await runInProcess(['keys', 'list', '--db', path]);
    assert.equal(table.code, 0, table.stderr);
    const lines = table.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 3);
    assert.match(lines[0]!, /^ID +TENANT +CREATED +STATE +SCOPE$/);
    const stateColumn = lines[0]!.indexOf('STATE');
    for (const line of lines.slice(1)) assert.equal(line.indexOf('active'), stateColumn, line);
    for (const line of lines.slice(1)) assert.equal(line.indexOf('write'), lines[0]!.indexOf('SCOPE'), line);
    for (const { key } of [acme, globex]) {
      assert.ok(!table.stdout.includes(key.slice("cdk_".length + 13)), 'a secret was printed');
    }
    assert.deepEqual((await listKeys(path, '--tenant', 'globex corp')).map((key) => key.id), [globex.id]);
  });

  test('create --scope read makes a key that reads; write is the default; list shows each scope', async (t) => {
    const path = await databaseFor(t);
    const reader = await createKey(path, 'acme', '--scope', 'read');
    const writer = await createKey(path, 'acme', '--scope', 'write');
    const plain = await createKey(path, 'acme');
    const scopes = new Map((await listKeys(path)).map((key) => [key.id, key.scope]));
    assert.deepEqual([reader, writer, plain].map(({ id }) => scopes.get(id)), ['read', 'write', 'write']);
    const principal = await withOtherStore(path, (store) => store.authenticate(reader.key));
    assert.equal(principal?.scope, 'read');
    const refused = await runInProcess(['keys', 'create', '--db', path, '--tenant', 'acme', '--scope', 'admin']);
    assert.equal(refused.code, 2);
    assert.equal(refused.stderr.trimEnd().split('\n').length, 1, refused.stderr);
    assert.match(refused.stderr, /admin/);
  });

  test('list of an unknown tenant is refused with exit 1', async (t) => {
    const path = await databaseFor(t);
    await createKey(path, 'acme');
    const result = await runInProcess(['keys', 'list', '--db', path, '--tenant', 'nobody']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^error: no tenant named "nobody"\n$/);
  });

  test('revoke takes the id or the full key; the key stops working', async (t) => {
    const path = await databaseFor(t);
    const byId = await createKey(path, 'acme');
    const byKey = await createKey(path, 'acme');
    for (const [given, key] of [[byId.id, byId.key], [byKey.key, byKey.key]] as const) {
      const result = await runInProcess(['keys', 'revoke', '--db', path, given]);
      assert.equal(result.code, 0, result.stderr);
      assert.ok(!(await authenticates(path, key)));
    }
    assert.deepEqual((await listKeys(path)).map((key) => key.state), ['revoked', 'revoked']);
  });

  test('revoking an unknown or revoked key is one line, exit 1, never echoing the key', async (t) => {
    const path = await databaseFor(t);
    const { key } = await createKey(path, 'acme');
    assert.equal((await runInProcess(['keys', 'revoke', '--db', path, key])).code, 0);
    const unknown = `cdk_000000000000_${'A'.repeat(43)}`;
    for (const given of [key, unknown, 'ffffffffffff']) {
      const result = await runInProcess(['keys', 'revoke', '--db', path, given]);
      assert.equal(result.code, 1, given);
      assert.match(result.stderr, /^error: [^\n]+\n$/);
      assert.ok(!result.stderr.includes(given), 'the key was echoed');
    }
  });
});
