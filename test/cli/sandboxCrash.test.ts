import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { createRandom } from '../../src/dataset/random.js';
import { generateSeed } from '../../src/dataset/generateSeed.js';
import { seedTenant } from '../../src/dataset/seedTenant.js';
import { exportOf } from '../support/datasets.js';
import { fixtureUser } from '../support/fixture.js';
import { exchange, tempDatabase, type Exchange } from '../support/harness.js';
import { startServe } from '../support/serveProcess.js';
import { assertIntegrity } from '../support/fileIntegrity.js';

/**
 * Crash safety of the administration API (as crashSafety.test.ts for the public API): `compdata
 * serve` is killed with SIGKILL while a sandbox is being copied from a large template, while a
 * sandbox is being reset, and while one is being deleted. After each kill, and a restart, the
 * tenant is whole or absent: it exports as the template (copy), as before or as created (reset),
 * as before or not at all (delete), its key works exactly when it is there, and every other
 * tenant exports byte for byte as before. The moment of the kill is a random fraction of how
 * long the same operation took when let finish, tried again until a kill lands before the
 * answer, while the operation is in flight (`CRASH_SEED=<seed>` replays the moments).
 */
const SEED = process.env.CRASH_SEED ?? String(Date.now());
const TOKEN = 'admin-token-0123456789abcdef';
/** Kills tried per operation before one must have landed before the answer. */
const MOST_TRIES = 5;

test(`SIGKILL during a sandbox copy, reset and delete leaves the tenant whole or absent, and every other tenant as it was (seed ${SEED})`, { timeout: 240_000 }, async (t) => {
  const { database, engine, store, sql } = await tempDatabase(t);
  await seedTenant(store, 'golden', generateSeed({ seed: 'crash', users: 200, records: 8000 }));
  const random = createRandom(SEED);
  const args = ['--admin-token-file', tokenFile(t)];
  let server = await startServe(t, database, args);
  const admin = (method: string, path: string, json?: unknown) => exchange(server.url, method, path, { bearer: TOKEN, ...(json !== undefined && { json }) });
  const restart = async () => (server = await startServe(t, database, args));

  /** Every tenant's export but `but`'s. */
  const others = async (but: string) => {
    const all = new Map<string, string | undefined>();
    for (const { name } of await store.listTenants({ limit: 1000 })) if (name !== but) all.set(name, await exportOf(store, name));
    return all;
  };
  /**
   * Runs `operation` once to its end, timed; then again from `before` (which brings the state
   * back to before it), killed at a random moment within that time, the server restarted, and
   * `check` run. Again until a kill lands before the answer (at most {@link MOST_TRIES} tries).
   */
  const killedDuring = async (label: string, operation: () => Promise<Exchange>, before: () => Promise<void>, check: () => Promise<void>) => {
    for (let tries = 1; ; tries += 1) {
      await before();
      const started = performance.now();
      const whole = await operation();
      assert.ok(whole.status < 300, `${label}: ${whole.text}`);
      const took = performance.now() - started;
      await before();
      const answer = operation().then((response) => response.status, () => 'none' as const);
      await new Promise((resolve) => setTimeout(resolve, random.between(Math.floor(took * 0.05), Math.floor(took * 0.5))));
      server.child.kill('SIGKILL');
      assert.equal((await server.exited).signal, 'SIGKILL');
      const answered = await answer;
      assertIntegrity(database);
      await restart();
      await check();
      t.diagnostic(`${label}, try ${tries}: took ${Math.round(took)} ms when let finish; answered ${answered} before the kill`);
      if (answered === 'none') return;
      assert.ok(tries < MOST_TRIES, `${label}: no kill of ${MOST_TRIES} landed before the answer`);
    }
  };

  // A copy: the new tenant is the template's copy whole (with its key), or there is no such tenant.
  const copyBefore = await others('copy');
  // The template's export, as every tenant but the copy (the template alone, so far) was exported just now.
  const golden = copyBefore.get('golden');
  assert.ok(golden, 'the template exports');
  await killedDuring(
    'copy',
    () => admin('POST', '/admin/v1/sandboxes', { name: 'copy', template: 'golden' }),
    async () => void (await admin('DELETE', '/admin/v1/tenants/copy')),
    async () => {
      const copied = await exportOf(store, 'copy');
      assert.ok(copied === undefined || copied === golden, 'the copy is whole or absent');
      assert.deepEqual(await others('copy'), copyBefore);
      const keys = (await admin('GET', '/admin/v1/tenants/copy/keys')).body;
      if (copied === undefined) assert.equal(keys.type, 'urn:compdata:problem:not-found');
      else assert.equal(keys.data.length, 1, 'the copy has its key');
      t.diagnostic(`copy after the kill: ${copied === undefined ? 'absent' : 'whole'}`);
    },
  );

  // A reset: the sandbox is as before the reset (written to) or as created, never between.
  const made = await admin('POST', '/admin/v1/sandboxes', { name: 'sb', template: 'golden' });
  assert.equal(made.status, 201, made.text);
  const sbKey = made.body.key.key as string;
  const write = async () => {
    const users = Array.from({ length: 50 }, (_, i) => fixtureUser('sb', 1000 + i));
    assert.equal((await exchange(server.url, 'PUT', '/v1/users/bulk', { key: sbKey, json: { data: users } })).status, 200);
  };
  await write();
  const written = await exportOf(store, 'sb');
  const resetBefore = await others('sb');
  await killedDuring('reset', () => admin('POST', '/admin/v1/tenants/sb/reset'), write, async () => {
    const afterReset = await exportOf(store, 'sb');
    assert.ok(afterReset === written || afterReset === golden, 'the reset is done whole or not at all');
    assert.deepEqual(await others('sb'), resetBefore);
    assert.equal((await exchange(server.url, 'GET', '/v1/reporting?limit=1', { key: sbKey })).status, 200, 'its key stays either way');
    t.diagnostic(`reset after the kill: ${afterReset === golden ? 'done' : 'not done'}`);
  });

  // A delete: the tenant is there as before (its key working) or gone with its key.
  const victimBefore = await others('victim');
  let victimKey = '';
  const makeVictim = async () => {
    if (await store.findTenant('victim')) return;
    const victim = await admin('POST', '/admin/v1/sandboxes', { name: 'victim', template: 'golden' });
    assert.equal(victim.status, 201, victim.text);
    victimKey = victim.body.key.key;
  };
  await killedDuring('delete', () => admin('DELETE', '/admin/v1/tenants/victim'), makeVictim, async () => {
    const victim = await exportOf(store, 'victim');
    assert.ok(victim === undefined || victim === golden, 'the delete is done whole or not at all');
    const victimRead = await exchange(server.url, 'GET', '/v1/reporting?limit=1', { key: victimKey });
    assert.equal(victimRead.status, victim === undefined ? 401 : 200, 'its key goes with it, and only with it');
    assert.deepEqual(await others('victim'), victimBefore);
    t.diagnostic(`delete after the kill: ${victim === undefined ? 'done' : 'not done'}`);
  });
  // The planner's statistics of the tenants copied and deleted seconds ago, brought up to date as
  // autovacuum would within its minute: the check then reads the same rows in a fraction of the time.
  if (engine === 'postgres') await sql.exec('ANALYZE');
  assert.deepEqual(await store.check(), []);
});

/** The administration token in a file of its own, removed when the test ends. */
function tokenFile(t: TestContext): string {
  const directory = mkdtempSync(join(tmpdir(), 'compdata-admin-token-'));
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  const file = join(directory, 'admin.token');
  writeFileSync(file, TOKEN);
  return file;
}

