import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EXAMPLE_BYTES, exportOf, importInto } from '../support/datasets.js';
import { buildFixture, emptyDatabaseFile } from '../support/fixture.js';
import { tempDatabase } from '../support/harness.js';
import { newDatabase, onlyOn, smallDiskSkip } from '../support/testDatabases.js';
import { runCli, type CliResult } from './cliProcess.js';

/**
 * `compdata import` on a full disk (issue 15, part 3): the database is on a small file system of
 * its own (the SQLite file, or the PostgreSQL database's tablespace), filled with ballast. The
 * import is refused with exit 1 and one line saying so; nothing of it is written, neither into
 * the tenant it was to replace nor as a new tenant; once the ballast is removed, the same import
 * succeeds.
 */
const skip = await smallDiskSkip();

const DISK_MEGABYTES = 48;

/**
 * Refused with one line saying the disk is full: at its first write, or, on PostgreSQL, already
 * at its connection (a server with no room cannot rewrite the catalog cache a write invalidated).
 */
function assertDiskFull(result: CliResult): void {
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /^error: (?:The disk that holds the database is full: nothing was written\.|cannot open database \S+: the disk that holds it is full)[^\n]*\n$/);
}

describe('import on a full disk', { skip }, () => {
  test('beside another process: refused with one line and nothing imported; the same import succeeds once space returns', async (t) => {
    // The dataset to import: 3,000 records, more than the room a full disk has left in its pages.
    const scratch = await tempDatabase(t, 'sqlite');
    await buildFixture(scratch.store, { tenant: 'acme', users: 100, records: 3000, deals: 300 });
    const dataset = (await exportOf(scratch.store, 'acme'))!;

    // The database held open by another process all along (`tempDatabase`'s store, as a server
    // would hold it), which also reads it between the commands.
    const { database: location, disk, store } = await tempDatabase(t, undefined, { smallDiskMegabytes: DISK_MEGABYTES });
    await importInto(store, 'acme', EXAMPLE_BYTES);
    const before = await exportOf(store, 'acme');

    disk!.fill();
    assertDiskFull(await runCli(['import', '--db', location, '--tenant', 'acme', '--replace', '-'], dataset));
    assert.equal(await exportOf(store, 'acme'), before, 'the tenant replaced is as it was');
    assertDiskFull(await runCli(['import', '--db', location, '--tenant', 'globex', '-'], dataset));
    assert.equal(await store.findTenant('globex'), undefined, 'no tenant was created by the refused import');

    disk!.free();
    const replaced = await runCli(['import', '--db', location, '--tenant', 'acme', '--replace', '-'], dataset);
    assert.equal(replaced.code, 0, replaced.stderr);
    assert.equal(await exportOf(store, 'acme'), dataset, 'the import succeeds whole once space returns');
    assert.deepEqual(await store.check(), [], 'the data model holds its invariants');
  });

  test('a SQLite file no process has open: commands refuse it with one line until space returns', { skip: skip || onlyOn('sqlite') }, async (t) => {
    const { location, disk } = await newDatabase(t, 'sqlite', { smallDiskMegabytes: 4 });
    await emptyDatabaseFile(location);
    disk!.fill();
    // SQLite cannot open the file without room for its -shm file: nothing is read or written.
    for (const args of [['import', '--db', location, '--tenant', 'acme', '-'], ['serve', '--db', location, '--port', '0']]) {
      const refused = await runCli(args, EXAMPLE_BYTES, 60_000);
      assert.equal(refused.code, 1, `${args[0]}: ${refused.stderr}`);
      assert.match(refused.stderr, /^error: [^\n]*cannot open database [^\n]*: the disk that holds it is full[^\n]*\n$/, args[0]);
    }
    disk!.free();
    const imported = await runCli(['import', '--db', location, '--tenant', 'acme', '-'], EXAMPLE_BYTES);
    assert.equal(imported.code, 0, imported.stderr);
  });
});
