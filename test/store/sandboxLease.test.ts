import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { seedSandbox } from '../../src/dataset/sandboxes.js';
import { SWEEPER_LEASE, SWEEPER_LEASE_MS, startSandboxSweeper } from '../../src/store/admin/sandboxSweeper.js';
import { onlyOn, tempDatabase, withOtherStore } from '../support/harness.js';
import { BEFORE_SANDBOX_TTL, runUndo } from '../support/undoMigrations.js';

const LEASE = 'test-lease';
const quiet = { info() {}, warn() {}, error() {} };

describe('leases of background work (ServerStore.takeLease)', () => {
  test('one owner at a time: the holder renews, another is refused until the lease has ended, then takes it over', async (t) => {
    const { database, store } = await tempDatabase(t);
    await withOtherStore(database, async (other) => {
      const claim = (owner: string, now: number, until = now + 1000) => (owner === 'a' ? store : other).takeLease({ name: LEASE, owner, now, until });
      assert.equal(await claim('a', 10_000), true, 'a free lease is taken');
      assert.equal(await claim('b', 10_500), false, 'held by a until 11000');
      assert.equal(await claim('a', 10_600), true, 'the holder renews, until 11600');
      assert.equal(await claim('b', 11_599), false);
      // a crashed: it renews no more; its lease ends at 11600.
      assert.equal(await claim('b', 11_600), true, 'taken over once ended');
      assert.equal(await claim('a', 11_700), false, 'the old holder, back, finds it taken');
      await store.releaseLease(LEASE, 'a');
      assert.equal(await claim('a', 11_800), false, 'only the holder gives it up');
      await other.releaseLease(LEASE, 'b');
      assert.equal(await claim('a', 11_900), true, 'given up: taken at once');
      assert.equal(await other.takeLease({ name: 'another', owner: 'b', now: 11_900, until: 12_900 }), true, 'leases of other names are apart');
    });
  });

  test('any sequence of claims: the lease goes to whoever a model of one holder with an end says', async (t) => {
    const { store, sql } = await tempDatabase(t);
    const claims = fc.array(fc.record({ owner: fc.constantFrom('a', 'b', 'c'), step: fc.nat({ max: 1500 }), span: fc.integer({ min: 1, max: 2000 }) }), { maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(claims, async (sequence) => {
        await sql.exec(`DELETE FROM leases`);
        let holder: { owner: string; until: number } | undefined;
        let now = 1_000_000;
        for (const { owner, step, span } of sequence) {
          now += step;
          const expected = holder === undefined || holder.owner === owner || holder.until <= now;
          assert.equal(await store.takeLease({ name: LEASE, owner, now, until: now + span }), expected);
          if (expected) holder = { owner, until: now + span };
        }
      }),
      { numRuns: 40 },
    );
  });

  // Claims at once from two connections. On PostgreSQL only: two SQLite stores of one process
  // would wait for each other's lock on one thread (across processes, SQLite's write lock
  // serialises the claims, each a transaction).
  test('claims at once from two stores: exactly one takes the lease', { skip: onlyOn('postgres') }, async (t) => {
    const { database, store } = await tempDatabase(t);
    await withOtherStore(database, async (other) => {
      for (let round = 0; round < 20; round += 1) {
        const name = `race-${round}`;
        const now = Date.now();
        const taken = await Promise.all([store, other].map((s, i) => s.takeLease({ name, owner: `owner-${i}`, now, until: now + 1000 })));
        assert.deepEqual(taken.filter(Boolean).length, 1, JSON.stringify(taken));
      }
    });
  });
});

describe('the sandbox sweeper over a store', () => {
  test('removes only sandboxes expired, each while still expired; leaves the lease of a crashed sweeper until it ends', async (t) => {
    const { store } = await tempDatabase(t);
    const now = Date.now();
    for (const name of ['old', 'young', 'kept']) await seedSandbox(store, name, { seed: 's', users: 1, records: 0 });
    // Given a time to live as at a moment: 'old' expired a second ago, 'young' in an hour, 'kept' never.
    assert.deepEqual(await store.setSandboxTtl('old', 1, now - 2000), { ttlSeconds: 1, expiresAt: new Date(now - 1000).toISOString() });
    assert.deepEqual(await store.setSandboxTtl('young', 3600, now), { ttlSeconds: 3600, expiresAt: new Date(now + 3_600_000).toISOString() });
    await store.createKey('seeded');
    assert.deepEqual(await store.expiredSandboxes(now, 10), ['old']);
    assert.equal(await store.deleteTenant('young', { expiredAt: now }), false, 'not expired: not deleted');
    assert.equal(await store.deleteTenant('kept', { expiredAt: now }), false);
    assert.equal(await store.deleteTenant('seeded', { expiredAt: now }), false);

    // A sweeper that crashed holding the lease: nobody sweeps until its lease has ended.
    assert.equal(await store.takeLease({ name: SWEEPER_LEASE, owner: 'crashed', now, until: now + SWEEPER_LEASE_MS }), true);
    const sweeper = startSandboxSweeper(store, quiet, { everyMs: 24 * 3600 * 1000, owner: 'alive' });
    t.after(() => sweeper.stop());
    assert.equal(await sweeper.sweep(), 0);
    assert.ok(await store.findTenant('old'));
    await store.takeLease({ name: SWEEPER_LEASE, owner: 'crashed', now, until: now - 1 });
    assert.equal(await sweeper.sweep(), 1);
    assert.equal(await store.findTenant('old'), undefined);
    for (const name of ['young', 'kept', 'seeded']) assert.ok(await store.findTenant(name), name);
    await sweeper.stop();
    assert.equal(await store.takeLease({ name: SWEEPER_LEASE, owner: 'next', now: Date.now(), until: Date.now() + 1000 }), true, 'a stopped sweeper gives its lease up');
  });

  test('a sweeper with nothing expired takes no lease and writes nothing, not at its stop either; one that swept gives its lease up', async (t) => {
    const { store } = await tempDatabase(t);
    await seedSandbox(store, 'sb', { seed: 's', users: 1, records: 0 });
    await store.setSandboxTtl('sb', 3600, Date.now());
    // The store itself, each write of the lease noted on its way there.
    const leaseWrites: string[] = [];
    const noted: Parameters<typeof startSandboxSweeper>[0] = {
      expiredSandboxes: (now, limit) => store.expiredSandboxes(now, limit),
      deleteTenant: (name, options) => store.deleteTenant(name, options),
      requestsInProgress: store.requestsInProgress,
      takeLease: (claim) => (leaseWrites.push(`take ${claim.owner}`), store.takeLease(claim)),
      releaseLease: (name, owner) => (leaseWrites.push(`release ${owner}`), store.releaseLease(name, owner)),
    };
    const idle = startSandboxSweeper(noted, quiet, { everyMs: 24 * 3600 * 1000, owner: 'idle' });
    assert.equal(await idle.sweep(), 0);
    await idle.stop();
    assert.deepEqual(leaseWrites, [], 'nothing to sweep: no lease taken, none given up');

    await store.setSandboxTtl('sb', 1, Date.now() - 2000);
    const busy = startSandboxSweeper(noted, quiet, { everyMs: 24 * 3600 * 1000, owner: 'busy' });
    assert.equal(await busy.sweep(), 1);
    await busy.stop();
    assert.deepEqual(leaseWrites, ['take busy', 'release busy']);
    assert.equal(await store.takeLease({ name: SWEEPER_LEASE, owner: 'next', now: Date.now(), until: Date.now() + 1000 }), true, 'its lease given up');
  });

  test('a database from before sandboxes had a time to live is migrated: its sandboxes never expire until given a time to live', async (t) => {
    const { engine, database, store, sql } = await tempDatabase(t);
    await seedSandbox(store, 'sb', { seed: 's', users: 1, records: 0 });
    // A statement at a time: Citus takes no DDL of its tables among several commands of one query.
    await runUndo(sql, BEFORE_SANDBOX_TTL[engine]);
    await withOtherStore(database, async (migrated) => {
      const [listed] = await migrated.listTenants({ limit: 10 });
      assert.equal(listed?.expiresAt, null);
      const set = await migrated.setSandboxTtl('sb', 60, 0);
      assert.deepEqual(set, { ttlSeconds: 60, expiresAt: '1970-01-01T00:01:00.000Z' });
      assert.deepEqual(await migrated.expiredSandboxes(60_000, 10), ['sb']);
      assert.equal(await migrated.takeLease({ name: LEASE, owner: 'a', now: 0, until: 1 }), true);
    });
  });
});
