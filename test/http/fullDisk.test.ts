import assert from 'node:assert/strict';
import { readdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, test } from 'node:test';
import { monthText, readAll } from '../support/attributions.js';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { startTestServer, TEST_ENGINE, type TestServer } from '../support/harness.js';
import { captureLogs } from '../support/logCapture.js';
import { samplesOf } from '../support/prometheusText.js';
import { onlyOn, smallDiskSkip } from '../support/testDatabases.js';
import { until } from '../support/until.js';

/**
 * A full disk (issue 15, part 3): the database lives on a small file system of its own (the
 * SQLite file, or the PostgreSQL database's tablespace), which the test fills with ballast.
 * Every PUT that needs room is then refused with the documented 507 and writes nothing of
 * itself; reads go on being served; once the ballast is removed the same PUT succeeds, with no
 * restart, and the data model's invariants hold.
 */
const skip = await smallDiskSkip();
const USERS = 200;
/** PUTs tried on the full disk before one must have been refused (the first find room left in pages already there). */
const MOST_ROUNDS = 300;
/** A PostgreSQL database takes about 8 MB before any data (a copy of its template). */
const DISK_MEGABYTES = TEST_ENGINE === 'sqlite' ? 16 : 48;

const user = (i: number) => `user${i}@acme.example`;
/** The month of a round: 2000-01 for round 0, a month later each round. */
const month = (round: number) => monthText(2000 * 12 + round);

/**
 * The items of round `round`: every user moves to group `R<round>` of `region` from a month of
 * the round's own, and to a segment from the month after. Each round splits every user's
 * stored attributions, so it writes new rows: on a full disk one soon finds no room.
 */
function roundItems(round: number): Record<string, unknown>[] {
  return Array.from({ length: USERS }, (_, i) =>
    i % 2
      ? { user: user(i), group_dimension: 'region', group: `R${round}`, start_date: month(round), end_date: null }
      : { user: user(i), group_dimension: 'segment', group: `S${round}`, start_date: month(round + 1), end_date: null },
  );
}

/** Everything a client can read back: every attribution and every record, all pages. */
async function everything(server: TestServer, key: string): Promise<unknown[][]> {
  return [
    await readAll(server, key, '/v1/users/groups?limit=1000'),
    await readAll(server, key, '/v1/users/managers?limit=1000'),
    await readAll(server, key, '/v1/reporting?limit=1000'),
    await readAll(server, key, '/v1/tables/deals/records'),
  ];
}

describe('a full disk: writes refused whole with 507, reads served, writes again once space returns', { skip }, () => {
  test('bulk PUTs on a disk filled up', async (t) => {
    let fixture!: Fixture;
    const logs = captureLogs('warn');
    const server = await startTestServer(
      t,
      { logger: logs.logger, metrics: true },
      async (store) => (fixture = await buildFixture(store, { tenant: 'acme', users: USERS, records: 2 * USERS })),
      { smallDiskMegabytes: DISK_MEGABYTES },
    );
    const disk = server.disk!;
    const put = (round: number) => server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data: roundItems(round) } });

    assert.ok(disk.fill() > 0, 'the ballast took the room left');
    let acknowledged = await everything(server, fixture.key);
    let refusedRound: number | undefined;
    for (let round = 0; round < MOST_ROUNDS && refusedRound === undefined; round += 1) {
      const response = await put(round);
      if (response.status === 200) {
        acknowledged = await everything(server, fixture.key);
        continue;
      }
      assert.equal(response.status, 507, response.text);
      assert.equal(response.body.type, 'urn:compdata:problem:insufficient-storage');
      assert.equal(response.headers.get('retry-after'), null, 'no promise of when space returns');
      refusedRound = round;
    }
    assert.notEqual(refusedRound, undefined, `one of ${MOST_ROUNDS} PUTs on a full disk was refused`);

    // Nothing of the refused PUT was written, and every read is still served (readAll asserts 200s).
    assert.deepEqual(await everything(server, fixture.key), acknowledged);
    // The refusal is no one-off: while the disk stays full, the same PUT is refused again.
    assert.equal((await put(refusedRound!)).status, 507);
    assert.deepEqual(await everything(server, fixture.key), acknowledged);

    const refusals = logs.entries().filter((entry) => /disk that holds the database is full/.test(entry.msg) && entry.level === 'error');
    assert.equal(refusals.length, 2, 'each refusal is logged as an error');
    const scraped = await server.call('GET', '/metrics');
    assert.equal(samplesOf(scraped.text).get('compdata_writes_refused_disk_full_total'), 2);

    disk.free();
    const again = await put(refusedRound!);
    assert.equal(again.status, 200, again.text);
    const [groups] = await everything(server, fixture.key);
    const written = (groups as { user: string; group: string; start_date: string }[]).filter((row) => row.group === `R${refusedRound}`);
    assert.equal(written.length, USERS / 2, 'the PUT refused before is written whole once space returns');
    assert.ok(written.every((row) => row.start_date === month(refusedRound!)));
    assert.equal((await put(refusedRound! + 1)).status, 200, 'and writes go on');
    assert.deepEqual(await server.store.check(), [], 'the data model holds its invariants');
  });
});

/** Every `pg_internal.init` under `directory`: PostgreSQL's relation-cache file of the database there. */
function relationCacheFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true, encoding: 'utf8' })
    .filter((path) => basename(path) === 'pg_internal.init')
    .map((path) => join(directory, path));
}

describe('a read stopped by a full disk is a 503 to retry, and is served once space returns', { skip: skip || onlyOn('postgres') }, () => {
  // On PostgreSQL a new connection may have to write the database's relation-cache file before it
  // serves anything (after a change to the catalog removed it); with no room, the server refuses
  // the connection. SQLite reads write nothing: there a full disk stops writes only.
  test('a page asked for over a new connection on the full disk', async (t) => {
    let fixture!: Fixture;
    const logs = captureLogs('warn');
    const server = await startTestServer(
      t,
      { logger: logs.logger, metrics: true },
      async (store) => (fixture = await buildFixture(store, { tenant: 'acme', users: 10, records: 20 })),
      { smallDiskMegabytes: DISK_MEGABYTES },
    );
    const page = () => server.call('GET', '/v1/reporting?limit=5', { key: fixture.key });
    const before = await page();
    assert.equal(before.status, 200, before.text);

    const cacheFiles = relationCacheFiles(server.disk!.directory);
    assert.ok(cacheFiles.length > 0, 'the database has a relation-cache file on its disk');
    // The test's own connection opens now: it must outlive the full disk.
    const servers = `FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'compdata'`;
    assert.ok(Number(await server.sql.value(`SELECT count(*) ${servers}`)) > 0, "the server's connections are open");
    for (const file of cacheFiles) rmSync(file);
    server.disk!.fill(); // after the removal: the room the files took is taken too
    // The sessions of compdata on the database end: the server's next read needs a new connection.
    await server.sql.exec(`SELECT pg_terminate_backend(pid) ${servers}`);
    await until("the server's sessions have ended", async () => Number(await server.sql.value(`SELECT count(*) ${servers}`)) === 0);

    const refused = await page();
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.body.type, 'urn:compdata:problem:service-unavailable');
    assert.match(String(refused.body.detail), /disk that holds the database is full/);
    assert.ok(Number(refused.headers.get('retry-after')) > 0, 'a read refused for a full disk says when to retry');
    const scraped = await server.call('GET', '/metrics');
    assert.equal(scraped.status, 200, 'the figures are scraped on a full disk too');
    assert.equal(samplesOf(scraped.text).get('compdata_writes_refused_disk_full_total') ?? 0, 0, 'a read is not counted as a refused write');
    const lost = logs.entries().filter((entry) => /connection was lost/.test(entry.msg));
    assert.ok(lost.length > 0 && lost.every((entry) => entry.code === '57P01' && !('err' in entry)), 'each lost connection is one short line with its reason');

    server.disk!.free();
    const after = await page();
    assert.equal(after.status, 200, after.text);
    assert.deepEqual(after.body, before.body, 'the same page once space returns');
  });
});
