import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { GroupAttributionInput, ManagerAttributionInput } from '../../src/store/vocabulary/tenantWriter.js';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { startTestServer } from '../support/harness.js';
import { readAll } from '../support/attributions.js';

/**
 * Raw offsets deep into the read-backs (past the rows the server skips one by one, where it
 * finds the user an offset falls in by counting): the page at any offset is the slice of the
 * whole list that following `next` gives.
 */
const USERS = 60;
const PERIODS = 200; // per user and dimension: 59 users * 200 = 11,800 rows per dimension, and as many managers

async function deepServer(t: TestContext) {
  let fixture!: Fixture;
  const server = await startTestServer(t, {}, async (store) => {
    fixture = await buildFixture(store, { tenant: 'deep', users: USERS, records: 0, deals: 0 });
    await store.loadTenant('deep', {}, async (writer) => {
      const groups: GroupAttributionInput[] = [];
      const managers: ManagerAttributionInput[] = [];
      for (let u = 1; u < USERS; u += 1) {
        for (let p = 0; p < PERIODS; p += 1) {
          for (const dimension of ['region', 'segment']) groups.push({ user_id: `u${u}`, dimension, group: `G${p % 9}`, start: 24000 + p, end: 24000 + p });
          managers.push({ user_id: `u${u}`, manager_id: `u${(u * 7 + p) % u}`, start: p === 0 ? null : 24000 + 2 * p, end: 24000 + 2 * p + 1 });
        }
      }
      await writer.addGroupAttributions(groups);
      await writer.addManagerAttributions(managers);
      await writer.finish();
    });
  });
  return { server, key: fixture.key };
}

test('deep raw offsets give the same pages as following next, with and without filters', async (t) => {
  const { server, key } = await deepServer(t);
  for (const path of ['/v1/users/groups', '/v1/users/groups?group_dimension=segment', '/v1/users/managers']) {
    const whole = await readAll(server, key, `${path}${path.includes('?') ? '&' : '?'}limit=2000`);
    assert.ok(whole.length > 10_500, `${path}: enough rows (${whole.length}) to go past the rows skipped one by one`);
    for (const offset of [10_000, 10_001, 10_777, whole.length - 3, whole.length, whole.length + 5]) {
      const page = await server.call('GET', `${path}${path.includes('?') ? '&' : '?'}limit=5&offset=${offset}`, { key });
      assert.equal(page.status, 200);
      assert.deepEqual(page.body.data, whole.slice(offset, offset + 5), `${path} at offset ${offset}`);
      assert.equal('next' in page.body, offset + 5 < whole.length, `${path} at offset ${offset}: next`);
    }
  }
});
