import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createLogger } from '../../../src/http/logging.js';
import { monthText } from '../../support/attributions.js';
import { fixtureFile } from '../../support/fixture.js';
import { exchange, serveDatabase, type Exchange } from '../../support/harness.js';
import { databaseOnOwnCluster } from '../../support/ownCluster.js';
import { mountSmallDisk, smallDiskUnavailable } from '../../support/smallDisk.js';
import { until } from '../../support/until.js';

/**
 * The disk of PostgreSQL's WAL fills (docs/operations.md, "A full disk"): PostgreSQL stops
 * itself rather than lose a commit. The write in flight is refused and nothing of it is kept;
 * every request meanwhile gets a 503 (never a 500); once space is freed and PostgreSQL is
 * started again, the server carries on by itself, with no restart of compdata. A cluster of the
 * test's own, its WAL on a small tmpfs (in segments of 1 MB that are not recycled, so that each
 * new one needs room).
 */
const USERS = 40;
const MOST_ROUNDS = 400;

/** The month of a round: 2000-01 for round 0, a month later each round. */
const month = (round: number) => monthText(2000 * 12 + round);
const roundItems = (round: number) =>
  Array.from({ length: USERS }, (_, i) => ({ user: `user${i}@acme.example`, group_dimension: 'region', group: `R${round}`, start_date: month(round), end_date: null }));


describe('PostgreSQL whose WAL disk fills', { skip: smallDiskUnavailable() }, () => {
  test('the write in flight is refused whole, requests get 503 while PostgreSQL is down, and all carries on once it is back', { timeout: 120_000 }, async (t) => {
    const disk = mountSmallDisk({ megabytes: 24 });
    t.after(() => disk.unmount());
    const { cluster, database } = await databaseOnOwnCluster(t, 'walfull', { walDirectory: `${disk.directory}/wal` });
    const { key } = await fixtureFile(database, { tenant: 'acme', users: USERS, records: 200 });
    const server = await serveDatabase(database, { logger: createLogger('silent') });
    t.after(() => server.close());
    const put = (round: number) => exchange(server.url, 'PUT', '/v1/users/groups/bulk', { key, json: { data: roundItems(round) } });
    const groups = () => exchange(server.url, 'GET', '/v1/users/groups?limit=2000', { key });

    disk.fill();
    let acknowledged = (await groups()).text;
    let refused: { round: number; answer: Exchange } | undefined;
    for (let round = 0; round < MOST_ROUNDS && !refused; round += 1) {
      const answer = await put(round);
      if (answer.status === 200) acknowledged = (await groups()).text;
      else refused = { round, answer };
    }
    assert.ok(refused, `one of ${MOST_ROUNDS} PUTs met the full WAL disk`);
    // PostgreSQL names its failure disk_full (507) or is gone before it answers (503); never a 500.
    assert.ok([503, 507].includes(refused.answer.status), `${refused.answer.status}: ${refused.answer.text}`);

    await until('PostgreSQL has stopped itself', () => cluster.hasEnded(), 60_000);
    for (const answer of [await groups(), await put(refused.round), await exchange(server.url, 'GET', '/healthz')]) {
      assert.equal(answer.status, 503, answer.text);
      assert.equal(answer.headers.get('retry-after'), '1');
    }

    disk.free();
    await cluster.startAgain();
    const back = await until('the server reads again', async () => {
      const answer = await groups();
      return answer.status === 200 ? answer : undefined;
    });
    // Compared as text, but reported by count: a page of 2,000 attributions is no message.
    const countOf = (text: string) => (JSON.parse(text) as { count: number }).count;
    assert.equal(countOf(back.text), countOf(acknowledged), 'as many attributions as the acknowledged PUTs left');
    assert.ok(back.text === acknowledged, 'every acknowledged PUT is there, and nothing of the refused one');
    assert.equal((await put(refused.round)).status, 200, 'writes succeed again, with no restart of compdata');
    const written = (await groups()).body.data.filter((row: { group: string }) => row.group === `R${refused.round}`);
    assert.equal(written.length, USERS);
  });
});
