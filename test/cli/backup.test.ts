import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { generateSeed } from '../../src/dataset/generateSeed.js';
import { seedTenant } from '../../src/dataset/seedTenant.js';
import { openStore } from '../../src/store/openStore.js';
import { fixtureFile } from '../support/fixture.js';
import { exchange, serveDatabase, withOtherStore } from '../support/harness.js';
import { startServe } from '../support/serveProcess.js';
import { mountSmallDisk, smallDiskUnavailable } from '../support/smallDisk.js';
import { databaseFor, onlyOn } from '../support/testDatabases.js';
import { runCli, runInProcess, temporaryDirectory } from './cliProcess.js';

const WRITERS = 8;

/**
 * The copy holds every invariant, as `compdata check` asks (that command's output is
 * check.test.ts's subject): asked in this process.
 */
async function assertChecked(copy: string): Promise<void> {
  assert.deepEqual(await withOtherStore(copy, (store) => store.check()), []);
}
const ITEMS_PER_PUT = 20;

/** The PUT `put` of writer `writer`: 20 one-month segment groups of its own user, named for the PUT. */
function putItems(writer: number, put: number) {
  return Array.from({ length: ITEMS_PER_PUT }, (_, j) => {
    const index = 2000 * 12 + put * ITEMS_PER_PUT + j;
    const month = `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
    return { user: `user${writer}@acme.example`, group_dimension: 'segment', group: `w${writer}-p${put}-${j}`, start_date: month, end_date: month };
  });
}

/** Every group name of `user` in `dimension`, read back page by page (following `next`). */
async function groupsOf(base: string, key: string, user: string): Promise<Set<string>> {
  const names = new Set<string>();
  let path: string | undefined = `/v1/users/groups?user=${encodeURIComponent(user)}&group_dimension=segment&limit=2000`;
  while (path) {
    const page = await exchange(base, 'GET', path, { key });
    assert.equal(page.status, 200, page.text);
    for (const item of page.body.data as { group: string }[]) names.add(item.group);
    path = page.body.next === undefined ? undefined : new URL(page.body.next as string).pathname + new URL(page.body.next as string).search;
  }
  return names;
}

describe('compdata backup', { concurrency: true }, () => {
  test('a backup taken while 8 writers PUT passes check and holds every PUT acknowledged before it began', { skip: onlyOn('sqlite') }, async (t) => {
    const directory = temporaryDirectory(t);
    const database = join(directory, 'live.db');
    const copy = join(directory, 'copy.db');
    const fixture = await fixtureFile(database, { tenant: 'acme', users: WRITERS, records: 200 });
    // Some bulk beside, so that the copy is not over at once: a generated tenant, seeded in this process.
    await withOtherStore(database, (store) => seedTenant(store, 'bulk', generateSeed({ seed: 'compdata', users: 200, records: 20_000 })));
    // The server that the writers write through is a process of its own: the backup below is
    // taken beside it, not in its process.
    const server = await startServe(t, database, ['--log-level', 'warn']);

    const acknowledged: { writer: number; put: number; at: number }[] = [];
    let stop = false;
    const writers = Array.from({ length: WRITERS }, async (_, writer) => {
      for (let put = 0; !stop; put += 1) {
        const answer = await exchange(server.url, 'PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data: putItems(writer, put) } });
        assert.equal(answer.status, 200, answer.text);
        acknowledged.push({ writer, put, at: performance.now() });
      }
    });
    const acknowledgedBy = (writer: number) => acknowledged.filter((ack) => ack.writer === writer).length;
    while (Array.from({ length: WRITERS }, (_, w) => acknowledgedBy(w)).some((count) => count < 3)) await new Promise((r) => setTimeout(r, 20));

    // Taken through the store as the command takes it, in this process: "before it began" is
    // then the moment of the copy itself, not a process start earlier (the server's checkpoints
    // move commits into the file within 250 ms: a plain file copy would miss the latest ones).
    const store = await openStore(database, { role: 'command', mustExist: true });
    const began = performance.now();
    const before = acknowledged.filter((ack) => ack.at < began);
    try {
      await store.backup(copy);
    } finally {
      await store.close();
    }
    const after = acknowledged.length;
    while (acknowledged.length < after + WRITERS) await new Promise((r) => setTimeout(r, 20));
    stop = true;
    await Promise.all(writers);

    await assertChecked(copy);

    // The copy is only read: served in this process.
    const served = await serveDatabase(copy);
    t.after(() => served.close());
    for (let writer = 0; writer < WRITERS; writer += 1) {
      const names = await groupsOf(served.url, fixture.key, `user${writer}@acme.example`);
      const puts = Math.max(...acknowledged.filter((ack) => ack.writer === writer).map((ack) => ack.put)) + 1;
      for (let put = 0; put < puts; put += 1) {
        const held = putItems(writer, put).filter((item) => names.has(item.group)).length;
        // A PUT is one transaction: in the copy whole or not at all.
        assert.ok(held === 0 || held === ITEMS_PER_PUT, `writer ${writer}, PUT ${put}: ${held} of ${ITEMS_PER_PUT} items in the copy`);
        if (before.some((ack) => ack.writer === writer && ack.put === put)) assert.equal(held, ITEMS_PER_PUT, `writer ${writer}, PUT ${put} acknowledged before the backup is missing`);
      }
    }
  });

  test('OUT is never replaced, and a failed backup leaves nothing behind', { skip: onlyOn('sqlite') }, async (t) => {
    const directory = temporaryDirectory(t);
    const database = join(directory, 'live.db');
    await fixtureFile(database, { tenant: 'acme' });
    const taken = join(directory, 'taken.db');
    writeFileSync(taken, 'mine');
    // The refusals run in this process; the copy that succeeds runs as the `compdata` binary.
    const refused = await runInProcess(['backup', '--db', database, taken]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.equal(refused.stderr, `error: ${taken} already exists: the backup never replaces a file\n`);
    assert.equal(readFileSync(taken, 'utf8'), 'mine');

    const failed = await runInProcess(['backup', '--db', database, join(directory, 'no-such-directory', 'copy.db')]);
    assert.equal(failed.code, 1, failed.stderr);
    assert.match(failed.stderr, /^error: [^\n]+\n$/);
    const files = readdirSync(directory).filter((name) => !name.startsWith('live.db'));
    assert.deepEqual(files, ['taken.db']);

    const copied = await runCli(['backup', '--db', database, join(directory, 'copy.db')]);
    assert.equal(copied.code, 0, copied.stderr);
    assert.match(copied.stdout, /^backed up .*live\.db to .*copy\.db in [\d.]+s\n$/);
    assert.deepEqual(readdirSync(directory).filter((name) => !name.startsWith('live.db')).sort(), ['copy.db', 'taken.db'], 'a temporary file was left');
    await assertChecked(join(directory, 'copy.db'));
  });

  test('a backup onto a full disk: exit 1, one line, nothing left there; it succeeds once space returns', { skip: onlyOn('sqlite') || smallDiskUnavailable() }, async (t) => {
    const directory = temporaryDirectory(t);
    const database = join(directory, 'live.db');
    await fixtureFile(database, { tenant: 'acme', records: 500 });
    const disk = mountSmallDisk({ megabytes: 8 });
    t.after(() => disk.unmount());
    disk.fill();
    const copy = join(disk.directory, 'copy.db');
    const failed = await runInProcess(['backup', '--db', database, copy]);
    assert.equal(failed.code, 1, failed.stderr);
    assert.equal(failed.stderr, `error: no room for the copy at ${copy}: its disk is full; nothing was left there\n`);
    assert.deepEqual(readdirSync(disk.directory), ['ballast'], 'no partial copy');
    disk.free();
    const copied = await runInProcess(['backup', '--db', database, copy]);
    assert.equal(copied.code, 0, copied.stderr);
    await assertChecked(copy);
  });

  test('a PostgreSQL database: exit 2, saying to use pg_dump', { skip: onlyOn('postgres') }, async (t) => {
    const database = await databaseFor(t);
    const out = join(temporaryDirectory(t), 'copy.db');
    const result = await runCli(['backup', '--db', database, out]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /^error: a PostgreSQL database is copied with PostgreSQL's own tools, .*pg_dump --format=custom --file=OUT [^\n]*\n$/);
    assert.deepEqual(readdirSync(join(out, '..')), []);
  });
});
