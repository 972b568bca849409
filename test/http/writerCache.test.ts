import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { example, importInto } from '../support/datasets.js';
import { startTestServer, withOtherStore, type TestServer } from '../support/harness.js';

/**
 * The writer thread remembers users looked up by e-mail and users' manager attributions between
 * bulk upserts (src/store/sqlite/writerCache.ts). Whatever another connection writes, or the
 * writer writes itself, the next upsert must see: each test here fails on a stale memory.
 */

/** The example dataset: ada and alan managed by grace (ada since always, alan in 2026-02..12). */
async function exampleServer(t: Parameters<typeof startTestServer>[0]): Promise<{ server: TestServer; key: string }> {
  let key = '';
  const server = await startTestServer(t, {}, async (store) => {
    await importInto(store, 'acme', example());
    key = (await store.createKey('acme')).key;
  });
  return { server, key };
}

/** A dataset of the example's tenant with only these elements (an import upserts them). */
function only(elements: Record<string, unknown>): Record<string, unknown> {
  const { format, metrics, dimensions } = example();
  return { format, metrics, dimensions, users: [], group_attributions: [], manager_attributions: [], reporting: [], tables: [], ...elements };
}

const put = (server: TestServer, key: string, data: unknown[]) => server.call('PUT', '/v1/users/groups/bulk', { key, json: { data } });

/** grace managed by ada from 2027: a cycle while ada is managed by grace in 2027. */
const graceUnderAda = [{ user: 'grace.hopper@example.com', manager: 'ada.lovelace@example.com', start_date: '2027-01', end_date: null }];

describe('the writer remembers, and forgets what changed', () => {
  test('a user another process adds is found by the next upsert that names them', async (t) => {
    const { server, key } = await exampleServer(t);
    const item = { user: 'late@example.com', group_dimension: 'region', group: 'EMEA', start_date: '2026-01', end_date: null };
    assert.equal((await put(server, key, [item])).status, 422, 'no such user yet');
    const late = { ...example().users[0], id: 'u-late', email: 'late@example.com', name: 'Late Comer' };
    await withOtherStore(server.database, (other) => importInto(other, 'acme', only({ users: [late] })));
    const again = await put(server, key, [item]);
    assert.equal(again.status, 200, JSON.stringify(again.body));
  });

  test('manager attributions another process changes are the ones the cycle check walks', async (t) => {
    const { server, key } = await exampleServer(t);
    assert.equal((await put(server, key, graceUnderAda)).status, 422, 'ada is managed by grace: a cycle');
    // Another process gives ada a manager of her own since always: alan, managed by no one in 2027.
    const adaUnderAlan = { user: 'ada.lovelace@example.com', manager: 'alan.turing@example.com', start_date: null, end_date: null };
    await withOtherStore(server.database, (other) => importInto(other, 'acme', only({ manager_attributions: [adaUnderAlan] })));
    const again = await put(server, key, graceUnderAda);
    assert.equal(again.status, 200, JSON.stringify(again.body));
  });

  test("the writer's own upsert of a user's managers is what its next cycle check walks", async (t) => {
    const { server, key } = await exampleServer(t);
    assert.equal((await put(server, key, graceUnderAda)).status, 422, 'ada is managed by grace: a cycle');
    const adaUnderAlan = { user: 'ada.lovelace@example.com', manager: 'alan.turing@example.com', start_date: null, end_date: null };
    assert.equal((await put(server, key, [adaUnderAlan])).status, 200);
    const again = await put(server, key, graceUnderAda);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    // And the cycle it would now close is still found: alan managed by grace from 2027 closes grace -> ada -> alan.
    const alanUnderGrace = [{ user: 'alan.turing@example.com', manager: 'grace.hopper@example.com', start_date: '2027-01', end_date: null }];
    assert.equal((await put(server, key, alanUnderGrace)).status, 422);
  });

  test('a group another process removed is created again by the next upsert that names it', async (t) => {
    const { server, key } = await exampleServer(t);
    const item = { user: 'ada.lovelace@example.com', group_dimension: 'segment', group: 'Zeta', start_date: '2026-05', end_date: null };
    assert.equal((await put(server, key, [item])).status, 200, 'Zeta is created');
    // Another process replaces the tenant's data: every group goes, Zeta with them.
    await withOtherStore(server.database, (other) => importInto(other, 'acme', example(), { replace: true }));
    const again = await put(server, key, [item]);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    const back = await server.call('GET', '/v1/users/groups?user=ada.lovelace@example.com&group_dimension=segment', { key });
    assert.deepEqual(
      back.body.data.map((row: { group: string; start_date: string }) => [row.group, row.start_date]).filter(([group]: string[]) => group === 'Zeta'),
      [['Zeta', '2026-05']],
    );
  });
});
